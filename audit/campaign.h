/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign's renderings, over what lib/usecase/audit/campaign/audit_campaign found:
 * campaign_report.c writes summary.md and report.html, with the grade
 * (campaign_grade.c), the stack options (campaign_options.c) and the
 * profiles (campaign_profiles.c) as their sections; campaign.c runs the
 * command. Only audit/campaign*.c include this. */
#ifndef AUDIT_CAMPAIGN_H
#define AUDIT_CAMPAIGN_H

#include <stdio.h>

#include <jansson.h>

#include "lib/core/textbuf.h"
#include "lib/usecase/audit/campaign/audit_campaign.h"

/* Their table, per cell medians, and (html) a partition chart per run
 * and side: split, objects, symbols, each as wide as its share. */
void audit_campaign_write_profiles(const json_t *profiles, struct ev_textbuf *t, int html);

/* Its tables, in Markdown or (html) HTML; nothing when options is NULL. */
void audit_campaign_write_stack_options(const json_t *options, struct ev_textbuf *t, int html);

/* "grade: diagnostic by the rules ...: N conditions failed, M unknown". */
void audit_campaign_grade_line(const struct ev_audit_campaign *ca, FILE *to);

/* The Grade section: each condition, its verdict and evidence. */
void audit_campaign_write_grade(const struct ev_audit_campaign *ca, struct ev_textbuf *t, int html);
/* The Interference section: each run's counters in figures, a disturbed run marked. */
void audit_campaign_write_interference(const struct ev_audit_campaign *ca, struct ev_textbuf *t, int html);

void audit_campaign_write_markdown(const struct ev_audit_campaign *ca, struct ev_textbuf *t, json_t *summary);

void audit_campaign_write_html(const struct ev_audit_campaign *ca, struct ev_textbuf *t, const char *campaign);

#endif
