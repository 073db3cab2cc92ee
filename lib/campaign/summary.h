/* SPDX-License-Identifier: Apache-2.0 */
/* summary: the name of a campaign summary's format, evidence-campaign-
 * summary/1 (doc/formats.md, "Campaign summary"): audit campaign writes
 * it, the comparison of two summaries (lib/usecase/audit/compare_side) reads it.
 * The one place the name is spelled. */
#ifndef EV_CAMPAIGN_SUMMARY_H
#define EV_CAMPAIGN_SUMMARY_H

#define EV_CAMPAIGN_SUMMARY_FORMAT "evidence-campaign-summary/1"

#endif
