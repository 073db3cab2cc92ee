/* SPDX-License-Identifier: Apache-2.0 */
/* audit journal --latency: what the copies' own stamps say, per direction
 * (doc/formats.md, "Latency from the journals"). A copy's stamp against
 * SendingTime(52), and with both copies the receiver's stamp against the
 * sender's, message by message. Which clocks a figure spans is said with
 * it: a difference of two hosts' clocks is never shown as a latency. */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/grow.h"
#include "lib/usecase/audit/journal/parts.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/textbuf.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/signature.h"
#include "lib/stats/hgrm.h"

/* What a copy's stamp is, by the format that kept it. */
static const char *stamp_name(enum ev_fixread_kind kind)
{
	return kind == EV_FIXREAD_LLFIX ? "journal timestamp" : kind == EV_FIXREAD_QF_LOG ? "log line time" : "stamp";
}

static const char *clock_of(const struct ev_audit_journal *run, int k)
{
	return run->clock[k] ? run->clock[k] : k == 0 ? "the sender's own clock" : "the receiver's own clock";
}

static int one_clock(const struct ev_audit_journal *run)
{
	return run->clock[0] && run->clock[1] && strcmp(run->clock[0], run->clock[1]) == 0;
}

/* Whether the hosts' clock records show both clocks synchronised within
 * the bound, the two errors added: 1 with *bound set and why saying by
 * what; 0 with why saying which clock failed and how (empty without
 * records). */
static int synchronised(const struct ev_audit_journal *run, char *why, size_t cap, long long *bound)
{
	why[0] = 0;
	*bound = 0;
	if (!run->clock_record[0] || !run->clock_record[1])
		return 0;
	static const char *const whose[] = {"the sender's clock", "the receiver's clock"};
	for (int k = 0; k < 2; k++)
		if (!run->clock_judged[k].synchronised) {
			snprintf(why, cap, "%s: %s (%s)", whose[k], run->clock_judged[k].how, run->clock_record[k]);
			return 0;
		}
	long long sum = run->clock_judged[0].error_ns + run->clock_judged[1].error_ns;
	char total[32], limit[32];
	ev_clocks_duration_text(sum, total, sizeof total);
	ev_clocks_duration_text(run->clock_bound_ns, limit, sizeof limit);
	if (sum > run->clock_bound_ns) {
		snprintf(why, cap, "the clocks' errors add to %s, more than --clock-bound %s (sender: %s; receiver: %s)", total,
			 limit, run->clock_judged[0].how, run->clock_judged[1].how);
		return 0;
	}
	*bound = sum;
	snprintf(why, cap, "two clocks synchronised within %s (sender: %s; receiver: %s)", total, run->clock_judged[0].how,
		 run->clock_judged[1].how);
	return 1;
}

/* A clock record under --trust: signed by a trusted key, unaltered since.
 * A run.json carries no signature of its own (its capture receipt pins
 * it): refused, saying what to give instead. */
static ev_status clock_signed(const char *path, const json_t *doc, const struct ev_trust *trust, struct ev_error *err)
{
	const char *format = json_string_value(json_object_get(doc, "format"));
	if (format && strcmp(format, EV_CLOCKS_FORMAT) != 0)
		return ev_error_set(err, EV_REFUSED,
				    "%s: a run.json carries no signature of its own, and --trust holds every clock record to one: give a record its host signed (capture clocks --sign-key), or audit its campaign with --trust",
				    path);
	char key[EV_SHA256_HEX_LEN + 1], why[512];
	ev_status st = ev_receipt_check_signature(doc, trust, key, why, sizeof why, err);
	if (st == EV_MISMATCH)
		return ev_error_set(err, EV_REFUSED, "%s: the clock record %s: its clock is not taken on trust", path, why);
	return st;
}

ev_status ev_journal_clocks_load(struct ev_audit_journal *run, struct ev_error *err)
{
	for (int k = 0; k < 2; k++) {
		if (!run->clock_record[k])
			continue;
		uint8_t d[EV_SHA256_LEN];
		json_t *doc = NULL;
		ev_status st = ev_clocks_load(run->clock_record[k], &run->clock_judged[k], d, &doc, err);
		if (st != EV_OK)
			return st;
		ev_sha256_hex(d, run->clock_record_hex[k]);
		if (run->clock_trust)
			st = clock_signed(run->clock_record[k], doc, run->clock_trust, err);
		json_decref(doc);
		if (st != EV_OK)
			return st;
	}
	const struct ev_clock_judgement *a = &run->clock_judged[0], *b = &run->clock_judged[1];
	char why[1200];
	long long bound;
	if (one_clock(run) && run->clock_record[0] && run->clock_record[1] && a->boot_id[0] && b->boot_id[0] &&
	    strcmp(a->boot_id, b->boot_id) != 0 && !synchronised(run, why, sizeof why, &bound))
		return ev_error_set(err, EV_USAGE,
				    "--clock names one clock (%s) for both copies, but their clock records are of two hosts (%s, boot %.8s; %s, boot %.8s) and %s: give each copy its own clock (no --clock), and the figure is said to span two",
				    run->clock[0], a->host, a->boot_id, b->host, b->boot_id, why);
	return EV_OK;
}

/* "1.234 us" from ns, sign kept. */
static void us(char *out, size_t cap, double ns)
{
	snprintf(out, cap, "%.3f us", ns / 1000.0);
}

/* Canonical JSON holds integers: a linear quantile's fraction is a
 * decimal string. */
static json_t *number(double v, enum ev_qrule rule)
{
	return rule == EV_QRULE_LINEAR ? ev_json_decimal_of(v, 3) : json_integer((json_int_t)v);
}

/* sum / n exactly, to the picosecond, as a decimal string with its sign. */
static json_t *mean_of(__int128 sum, uint64_t n)
{
	unsigned __int128 mag = sum < 0 ? (unsigned __int128)-sum : (unsigned __int128)sum;
	json_t *m = ev_json_decimal(mag, n, 3);
	if (sum >= 0 || !m || strspn(json_string_value(m), "0.") == strlen(json_string_value(m)))
		return m; /* no sign on a mean that rounds to zero */
	char text[80];
	snprintf(text, sizeof text, "-%s", json_string_value(m));
	json_decref(m);
	return json_string(text);
}

/* The file name's part for a CompID: letters, digits, '.', '_', '-'. */
static void file_part(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (; *in && n + 1 < cap; in++)
		out[n++] = (*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') || (*in >= '0' && *in <= '9') ||
				   *in == '.' || *in == '_' || *in == '-'
			   ? *in
			   : '_';
	out[n] = 0;
}

static ev_status publish_hgrm(struct ev_audit_journal *run, const int64_t *v, size_t n, const char *name,
			      json_t *receipt, json_t *fig, struct ev_error *err)
{
	struct ev_distribution d;
	/* every value is at or above zero here: the same bits as unsigned */
	if (ev_distribution_of((const uint64_t *)v, n, &d, run->interrupted) != 0)
		return *run->interrupted ? ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing is claimed")
					  : ev_error_set(err, EV_ERROR, "out of memory for %s", name);
	size_t len;
	char *text = ev_hgrm_text(&d, 1.0, 0, &len);
	ev_distribution_free(&d);
	if (!text)
		return ev_error_set(err, EV_ERROR, "out of memory for %s", name);
	char path[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1];
	uint8_t digest[EV_SHA256_LEN];
	ev_status st = ev_path_join(path, sizeof path, run->hgrm_dir, name) != 0
			       ? ev_error_set(err, EV_USAGE, "%s: path too long", run->hgrm_dir)
			       : ev_publish_bytes(path, text, len, 0644, err);
	if (st == EV_OK && (st = ev_sha256_buffer(text, len, digest, err)) == EV_OK) {
		ev_sha256_hex(digest, hex);
		char *kept = strdup(path);
		int grown = ev_grow_array(&run->hgrm_published, &run->hgrm_published_cap, run->nhgrm_published + 1,
					  sizeof *run->hgrm_published) == 0;
		if (!kept || !grown) {
			unlink(path);
			free(kept);
			st = ev_error_set(err, EV_ERROR, "out of memory for %s", name);
		} else {
			run->hgrm_published[run->nhgrm_published++] = kept;
			st = ev_receipt_add_output(receipt, name, path, hex, err);
			json_object_set_new(fig, "hgrm", json_string(name));
		}
	}
	free(text);
	return st;
}

/* One figure: its summary into fig and a line into t; v (n values) is
 * published as .hgrm first when asked and possible, then reordered. */
static ev_status figure(struct ev_audit_journal *run, const struct ev_journal_pair *p, int64_t *v, size_t n, const char *label,
			const char *file, json_t *receipt, json_t *fig, struct ev_textbuf *t, struct ev_error *err)
{
	json_object_set_new(fig, "messages", json_integer((json_int_t)n));
	if (!n) {
		ev_textbuf_add(t, "pair %zu %s: no message to measure\n", p->number, label);
		return EV_OK;
	}
	int64_t min = v[0];
	for (size_t i = 1; i < n; i++)
		if (v[i] < min)
			min = v[i];
	ev_status st = EV_OK;
	if (run->hgrm_dir) {
		if (min >= 0)
			st = publish_hgrm(run, v, n, file, receipt, fig, err);
		else
			json_object_set_new(fig, "hgrm_left_out", json_string("values below zero: HdrHistogram holds none"));
	}
	if (st != EV_OK)
		return st;
	struct ev_fixlatency_summary s;
	if (ev_fixlatency_summarize(v, n, run->quantile_rule, &s) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory for the latency of pair %zu", p->number);
	json_object_set_new(fig, "quantile_rule", json_string(ev_qrule_name(run->quantile_rule)));
	json_object_set_new(fig, "min_ns", json_integer(s.min));
	json_object_set_new(fig, "max_ns", json_integer(s.max));
	json_object_set_new(fig, "mean_ns", mean_of(s.sum, s.n));
	char a[32], b[32], line[640];
	size_t at = 0;
	us(a, sizeof a, (double)s.min);
	at += (size_t)snprintf(line + at, sizeof line - at, "min %s", a);
	for (int k = 0; k < EV_FIXLATENCY_QUANTILES; k++) {
		char key[32];
		snprintf(key, sizeof key, "p%s_ns", ev_fixlatency_percents[k]);
		json_object_set_new(fig, key, number(s.q[k], run->quantile_rule));
		us(a, sizeof a, s.q[k]);
		at += (size_t)snprintf(line + at, sizeof line - at, ", p%s %s", ev_fixlatency_percents[k], a);
	}
	us(a, sizeof a, (double)s.max);
	us(b, sizeof b, s.mean);
	snprintf(line + at, sizeof line - at, ", max %s; mean %s", a, b);
	ev_textbuf_add(t, "pair %zu %s: %zu messages: %s (%s)\n", p->number, label, n, line,
		       ev_qrule_name(run->quantile_rule));
	return EV_OK;
}

/* A power of ten of ns in its unit: "100 ns", "1 us", "10 ms", "1 s". */
static void duration(char *out, size_t cap, uint64_t ns)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	int u = 0;
	while (u < 3 && ns >= 1000 && ns % 1000 == 0) {
		ns /= 1000;
		u++;
	}
	snprintf(out, cap, "%" PRIu64 " %s", ns, unit[u]);
}

static void resolution(json_t *fig, struct ev_textbuf *t, uint64_t ns, uint64_t a_ns, const char *a, uint64_t b_ns,
		       const char *b)
{
	json_object_set_new(fig, "resolution_ns", json_integer((json_int_t)ns));
	char all[32], x[32], y[32];
	duration(all, sizeof all, ns);
	duration(x, sizeof x, a_ns);
	duration(y, sizeof y, b_ns);
	ev_textbuf_add(t, "  resolution %s (%s to %s, %s to %s)\n", all, a, x, b, y);
}

/* stamp - SendingTime in one copy, one direction. */
static ev_status copy_figure(struct ev_audit_journal *run, struct ev_journal_pair *p, int k, int dir, json_t *receipt,
			     json_t *list, struct ev_textbuf *t, struct ev_error *err)
{
	struct ev_journal_side *s = &p->side[k];
	struct ev_fixlatency_stream *l = &s->latency[dir];
	uint64_t left_out = l->resends + l->unstamped + l->unnumbered + l->untimed;
	if (!l->n && !left_out)
		return EV_OK;
	if (l->oom)
		return ev_error_set(err, EV_ERROR, "out of memory for the latency of pair %zu %s", p->number, s->role);
	int sent = (k == 0) == (dir == 0); /* the sender's copy sends its direction */
	int other = 1 - k;
	/* a SendingTime is stamped where the message was sent */
	const char *sending_clock = sent ? clock_of(run, k) : clock_of(run, other);
	int same = sent || one_clock(run);
	char label[1800], clocks[1400], file[256], from[EV_FIXLATENCY_COMPID_MAX], to[EV_FIXLATENCY_COMPID_MAX];
	char why[1200];
	long long bound;
	int synced = !same && synchronised(run, why, sizeof why, &bound);
	if (same)
		snprintf(clocks, sizeof clocks, "one clock (%s)", clock_of(run, k));
	else if (synced)
		snprintf(clocks, sizeof clocks, "%s", why);
	else
		snprintf(clocks, sizeof clocks, "two clocks (the stamp: %s; SendingTime: %s), their offset included%s%s",
			 clock_of(run, k), sending_clock, why[0] ? ": " : "", why);
	snprintf(label, sizeof label, "%-8s latency %s->%s: %s (when %s) - SendingTime(52), %s", s->role, l->from, l->to,
		 stamp_name(s->kind), sent ? "sent" : "received", clocks);
	file_part(l->from, from, sizeof from);
	file_part(l->to, to, sizeof to);
	snprintf(file, sizeof file, "pair-%zu-%s-%s-%s.hgrm", p->number, s->role, from, to);
	json_t *fig = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s}", "copy", s->role, "from", l->from, "to", l->to,
				"figure", "stamp - SendingTime(52)", "stamp", stamp_name(s->kind), "one_clock", same,
				"stamp_clock", clock_of(run, k), "sending_time_clock", sending_clock);
	json_object_set_new(fig, "stamp_taken_when", json_string(sent ? "sent" : "received"));
	if (!same && run->clock_record[0] && run->clock_record[1]) {
		json_object_set_new(fig, "clocks_synchronised", json_boolean(synced));
		json_object_set_new(fig, synced ? "error_bound_ns" : "clocks_why",
				    synced ? json_integer((json_int_t)bound) : json_string(why));
	}
	json_object_set_new(fig, "left_out", json_pack("{s:I, s:I, s:I, s:I}", "resends", (json_int_t)l->resends,
							"unstamped", (json_int_t)l->unstamped, "without_msgseqnum",
							(json_int_t)l->unnumbered, "without_sending_time",
							(json_int_t)l->untimed));
	json_array_append_new(list, fig);
	if (!l->n && l->unstamped == left_out) {
		ev_textbuf_add(t, "pair %zu %-8s latency %s->%s: the %s keeps no time of its own: %" PRIu64
			       " messages not measured\n",
		    p->number, s->role, l->from, l->to, ev_fixread_kind_name(s->kind), left_out);
		return EV_OK;
	}
	int64_t *v;
	if (ev_fixlatency_deltas(l, &v) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory for the latency of pair %zu %s", p->number, s->role);
	ev_status st = figure(run, p, v, l->n, label, file, receipt, fig, t, err);
	free(v);
	if (st == EV_OK && l->n) {
		resolution(fig, t, ev_fixlatency_coarser(l->stamp_resolution_ns, l->sending_resolution_ns),
			   l->stamp_resolution_ns, "the stamps", l->sending_resolution_ns, "SendingTime");
	}
	if (left_out)
		ev_textbuf_add(t, "  left out: %" PRIu64 " resends (43=Y), %" PRIu64 " without a stamp, %" PRIu64
		       " without MsgSeqNum, %" PRIu64 " without a SendingTime\n",
		    l->resends, l->unstamped, l->unnumbered, l->untimed);
	return st;
}

/* The later copy's stamp - the earlier's, message by message. */
static ev_status between_figure(struct ev_audit_journal *run, struct ev_journal_pair *p, int dir, json_t *receipt, json_t *list,
				struct ev_textbuf *t, struct ev_error *err)
{
	int from_k = dir == 0 ? 0 : 1, to_k = 1 - from_k;
	struct ev_fixlatency_stream *a = &p->side[from_k].latency[dir], *b = &p->side[to_k].latency[dir];
	if (!a->n || !b->n)
		return EV_OK;
	int64_t *v;
	size_t n;
	uint64_t only_a, only_b;
	if (ev_fixlatency_one_way(a, b, &v, &n, &only_a, &only_b) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory for the latency of pair %zu", p->number);
	int same = one_clock(run);
	char label[1800], file[256], from[EV_FIXLATENCY_COMPID_MAX], to[EV_FIXLATENCY_COMPID_MAX], why[1200];
	long long bound;
	int synced = !same && synchronised(run, why, sizeof why, &bound);
	if (same)
		snprintf(label, sizeof label, "one-way  %s->%s: the %s's %s (received) - the %s's (sent), one clock (%s)",
			 a->from, a->to, p->side[to_k].role, stamp_name(p->side[to_k].kind), p->side[from_k].role,
			 clock_of(run, 0));
	else if (synced)
		snprintf(label, sizeof label, "one-way  %s->%s: the %s's %s (received) - the %s's (sent), %s", a->from, a->to,
			 p->side[to_k].role, stamp_name(p->side[to_k].kind), p->side[from_k].role, why);
	else
		snprintf(label, sizeof label,
			 "between  %s->%s: the %s's %s (received) - the %s's (sent), two clocks (%s; %s): not a latency, "
			 "their offset included%s%s",
			 a->from, a->to, p->side[to_k].role, stamp_name(p->side[to_k].kind), p->side[from_k].role,
			 clock_of(run, to_k), clock_of(run, from_k), why[0] ? ": " : "", why);
	file_part(a->from, from, sizeof from);
	file_part(a->to, to, sizeof to);
	snprintf(file, sizeof file, "pair-%zu-between-copies-%s-%s.hgrm", p->number, from, to);
	json_t *fig = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:I, s:I}", "copy", "both", "from", a->from,
				"to", a->to, "figure",
				same     ? "one-way: received stamp - sent stamp"
				: synced ? "one-way: received stamp - sent stamp, two clocks synchronised"
					 : "received stamp - sent stamp across two clocks",
				"matched_by", "MsgSeqNum, the first of each number in each copy", "one_clock", same,
				"sent_clock", clock_of(run, from_k), "received_clock", clock_of(run, to_k),
				"only_in_sent_copy", (json_int_t)only_a, "only_in_received_copy", (json_int_t)only_b);
	if (!same && run->clock_record[0] && run->clock_record[1]) {
		json_object_set_new(fig, "clocks_synchronised", json_boolean(synced));
		json_object_set_new(fig, synced ? "error_bound_ns" : "clocks_why",
				    synced ? json_integer((json_int_t)bound) : json_string(why));
	}
	json_array_append_new(list, fig);
	ev_status st = figure(run, p, v, n, label, file, receipt, fig, t, err);
	free(v);
	if (st == EV_OK && n) {
		char x[64], y[64];
		snprintf(x, sizeof x, "the %s's stamps", p->side[from_k].role);
		snprintf(y, sizeof y, "the %s's", p->side[to_k].role);
		resolution(fig, t, ev_fixlatency_coarser(a->stamp_resolution_ns, b->stamp_resolution_ns),
			   a->stamp_resolution_ns, x, b->stamp_resolution_ns, y);
	}
	if (only_a || only_b)
		ev_textbuf_add(t, "  not in both copies: %" PRIu64 " only in the %s's, %" PRIu64 " only in the %s's\n", only_a,
		    p->side[from_k].role, only_b, p->side[to_k].role);
	return st;
}

ev_status ev_journal_latency(struct ev_audit_journal *run, struct ev_journal_pair *p, json_t *receipt, struct ev_error *err)
{
	json_t *list = json_array();
	struct ev_textbuf t = {0};
	ev_status st = EV_OK;
	for (int k = 0; k < 2 && st == EV_OK; k++)
		for (int dir = 0; dir < 2 && st == EV_OK; dir++)
			if (p->side[k].present)
				st = copy_figure(run, p, k, dir, receipt, list, &t, err);
	if (p->side[0].present && p->side[1].present)
		for (int dir = 0; dir < 2 && st == EV_OK; dir++)
			st = between_figure(run, p, dir, receipt, list, &t, err);
	for (int k = 0; k < 2; k++)
		for (int dir = 0; dir < 2; dir++)
			ev_fixlatency_stream_free(&p->side[k].latency[dir]);
	if (st == EV_OK && !json_array_size(list))
		ev_textbuf_add(&t, "pair %zu latency: no copy keeps a time of its own for its messages (a FileStore and a raw "
			"capture keep none; an llfix journal or a QuickFIX FileLog does)\n",
		    p->number);
	if (st == EV_OK && t.oom)
		st = ev_error_set(err, EV_ERROR, "out of memory for the latency of pair %zu", p->number);
	if (st != EV_OK) {
		json_decref(list);
		free(t.s);
		return st;
	}
	p->latency = list;
	p->latency_text = t.s;
	return EV_OK;
}

void ev_journal_latency_release(struct ev_audit_journal *run, int remove)
{
	for (size_t i = 0; i < run->nhgrm_published; i++) {
		if (remove)
			unlink(run->hgrm_published[i]);
		free(run->hgrm_published[i]);
	}
	free(run->hgrm_published);
	run->hgrm_published = NULL;
	run->nhgrm_published = run->hgrm_published_cap = 0;
}
