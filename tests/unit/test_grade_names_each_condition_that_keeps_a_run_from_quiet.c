/* SPDX-License-Identifier: Apache-2.0 */
/* grade: what capture records of an isolated host and an undisturbed run
 * grades quiet under the shipped rules; flipping any one condition alone
 * makes the run diagnostic with exactly that condition failed and its
 * evidence named; removing a recorded field makes it unknown, never
 * quiet; a condition the rules leave null is not graded; the rules
 * themselves are refused when a key is missing, unknown or mistyped. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/campaign/grade.h"

static const char quiet_policy[] =
	"{\"format\": \"evidence-policy/1\", \"host\": \"lab1\","
	" \"isolation\": {\"isolcpus\": \"domain,managed_irq,2-3\", \"nohz_full\": \"2-3\", \"rcu_nocbs\": \"2-3\", \"irqaffinity\": \"0-1\"},"
	" \"cpus\": {\"0\": {\"governor\": \"performance\", \"energy_performance_preference\": \"performance\", \"smt_siblings\": \"0\"},"
	"          \"2\": {\"governor\": \"performance\", \"energy_performance_preference\": \"performance\", \"smt_siblings\": \"2\"},"
	"          \"3\": {\"governor\": \"performance\", \"energy_performance_preference\": \"performance\", \"smt_siblings\": \"3\"}},"
	" \"turbo\": {\"intel_pstate_no_turbo\": \"1\"}, \"transparent_hugepage\": \"always madvise [never]\","
	" \"numa_balancing\": \"0\", \"clocksource\": \"tsc\", \"watchdog_cpumask\": \"0-1\", \"nmi_watchdog\": \"0\","
	" \"interrupts\": {\"24\": {\"counts\": {\"2\": 0, \"3\": 0}, \"description\": \"IO-APIC    5-edge   ACPI:Ged\","
	"                          \"effective_affinity_list\": \"0\", \"smp_affinity_list\": \"0-1\"},"
	"                  \"LOC\": {\"counts\": {\"2\": 5, \"3\": 5}, \"description\": \"Local timer interrupts\"}}}";

static const char quiet_run[] =
	"{\"format\": \"evidence-run/1\", \"name\": \"001-baseline-spin-1\", \"arm\": \"baseline\", \"cell\": \"spin\","
	" \"result\": \"ok\", \"repeat\": 1, \"counts\": {\"warmups\": 10, \"measured\": 100},"
	" \"controller\": {\"cpus\": [0], \"chosen\": \"plan\", \"shared_with_sides\": []},"
	" \"lease\": {\"mode\": \"exclusive\", \"cpus\": \"0,2-3\", \"priority\": \"normal\"},"
	" \"cpu_dma_latency\": {\"held\": true, \"requested_us\": 0, \"observed_us\": 0},"
	" \"cpus\": {\"before\": {\"interrupts\": {\"24\": {\"2\": 0, \"3\": 0}, \"LOC\": {\"2\": 5, \"3\": 5}, \"NMI\": {\"2\": 0, \"3\": 0}}},"
	"          \"after\": {\"interrupts\": {\"24\": {\"2\": 0, \"3\": 0}, \"LOC\": {\"2\": 5, \"3\": 5}, \"NMI\": {\"2\": 0, \"3\": 0}}}},"
	" \"processes\": [{\"role\": \"peer\", \"cpu\": 2, \"before\": {\"status\": {\"nonvoluntary_ctxt_switches\": 1}},"
	"                  \"after\": {\"status\": {\"nonvoluntary_ctxt_switches\": 1}}},"
	"                 {\"role\": \"sender\", \"cpu\": 3, \"before\": {\"status\": {\"nonvoluntary_ctxt_switches\": 0}},"
	"                  \"after\": {\"status\": {\"nonvoluntary_ctxt_switches\": 0}}}],"
	" \"observers\": [{\"name\": \"stack\", \"side\": \"sender\", \"outputs\": [{\"when\": \"before\"}, {\"when\": \"after\"}]}],"
	" \"interference\": {"
	"  \"before\": {\"monotonic_ns\": 1000000000, \"ticks_per_second\": 100,"
	"   \"cpus\": {\"2\": {\"smi\": 5, \"aperf\": 1000, \"mperf\": 1000, \"thermal_throttle\": {\"core_throttle_count\": 2},"
	"                    \"stat\": {\"steal\": 0}},"
	"            \"3\": {\"smi\": 5, \"aperf\": 1000, \"mperf\": 1000, \"thermal_throttle\": {\"core_throttle_count\": 2},"
	"                    \"stat\": {\"steal\": 0}}},"
	"   \"vmstat\": {\"pswpin\": 4, \"pswpout\": 4},"
	"   \"pressure\": {\"cpu\": {\"some_total_us\": 700}, \"memory\": {\"some_total_us\": 700}, \"io\": {\"some_total_us\": 700}}},"
	"  \"after\": {\"monotonic_ns\": 2000000000, \"ticks_per_second\": 100,"
	"   \"cpus\": {\"2\": {\"smi\": 5, \"aperf\": 2000, \"mperf\": 2000, \"thermal_throttle\": {\"core_throttle_count\": 2},"
	"                    \"stat\": {\"steal\": 0}},"
	"            \"3\": {\"smi\": 5, \"aperf\": 2000, \"mperf\": 2000, \"thermal_throttle\": {\"core_throttle_count\": 2},"
	"                    \"stat\": {\"steal\": 0}}},"
	"   \"vmstat\": {\"pswpin\": 4, \"pswpout\": 4},"
	"   \"pressure\": {\"cpu\": {\"some_total_us\": 700}, \"memory\": {\"some_total_us\": 700}, \"io\": {\"some_total_us\": 700}}}}}";

static const char quiet_plan[] =
	"{\"format\": \"evidence-plan/1\", \"name\": \"q\", \"arms\": [{\"name\": \"baseline\", \"cpu_dma_latency\": 0}],"
	" \"observers\": [{\"name\": \"stack\", \"argv\": [\"/bin/true\"], \"when\": [\"before\", \"after\"]}],"
	" \"cells\": [{\"name\": \"spin\", \"sender\": {\"cpu\": 3}, \"peer\": {\"cpu\": 2}}]}";

/* The value at a dotted path ("cpus.2.governor", "processes.1.after"). */
static json_t *at(json_t *doc, const char *path, char *last, size_t cap)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", path);
	char *dot = strrchr(buf, '.');
	snprintf(last, cap, "%.63s", dot ? dot + 1 : buf);
	if (!dot)
		return doc;
	*dot = 0;
	json_t *v = doc;
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = json_is_array(v) ? json_array_get(v, (size_t)atoi(k)) : json_object_get(v, k);
	return v;
}

static void set(json_t *doc, const char *path, json_t *value)
{
	char last[64];
	json_t *parent = at(doc, path, last, sizeof last);
	CHECK(parent != NULL);
	if (json_is_array(parent))
		json_array_set_new(parent, (size_t)atoi(last), value);
	else
		json_object_set_new(parent, last, value);
}

static void drop(json_t *doc, const char *path)
{
	char last[64];
	json_t *parent = at(doc, path, last, sizeof last);
	CHECK(parent != NULL && json_object_del(parent, last) == 0);
}

/* Every verdict of one run: the host's, then the run's, merged. */
static json_t *judge(const json_t *rules, const json_t *policy, const json_t *run_doc, const json_t *plan)
{
	struct ev_run run = {.doc = (json_t *)run_doc};
	struct ev_plan p = {.doc = (json_t *)plan};
	struct ev_grade_cpus cpus;
	json_t *all = json_array();
	ev_grade_run_cpus(&run, &cpus);
	struct ev_policy pol = {.doc = (json_t *)policy};
	ev_grade_policy(rules, policy ? &pol : NULL, "policy.json", &cpus, all);
	ev_grade_run(rules, plan ? &p : NULL, &run, all);
	json_t *merged = ev_grade_merge(all);
	json_decref(all);
	return merged;
}

/* merged is diagnostic with only cond off pass, as verdict, its first
 * sentence holding want. */
static void only(const char *what, json_t *merged, const char *cond, const char *verdict, const char *want)
{
	size_t i, off = 0;
	json_t *v;
	int found = 0;
	json_array_foreach(merged, i, v) {
		const char *c = json_string_value(json_object_get(v, "condition"));
		const char *got = json_string_value(json_object_get(v, "verdict"));
		if (strcmp(got, "pass") == 0 || strcmp(got, "not graded") == 0) /* clocks: the default grades it not */
			continue;
		off++;
		if (strcmp(c, cond) != 0) {
			fprintf(stderr, "%s: %s is %s too\n", what, c, got);
			continue;
		}
		found = 1;
		CHECK_STR_EQ(got, verdict);
		const char *first = json_string_value(json_array_get(json_object_get(v, "evidence"), 0));
		if (!first || !strstr(first, want))
			fprintf(stderr, "%s: expected evidence holding \"%s\", found \"%s\"\n", what, want, first ? first : "none");
		CHECK(first && strstr(first, want));
	}
	if (!found || off != 1)
		fprintf(stderr, "%s: expected %s alone %s, found %zu conditions off\n", what, cond, verdict, off);
	CHECK(found && off == 1);
	CHECK_STR_EQ(ev_grade_of(merged), "diagnostic");
}

struct flip {
	int on_run;               /* else the policy */
	const char *path;
	const char *value;        /* JSON; NULL: the field removed */
	const char *condition, *verdict, *evidence;
};

static const struct flip flips[] = {
	{0, "isolation.isolcpus", "null", "isolcpus", "fail", "the kernel command line has no isolcpus (policy.json)"},
	{0, "isolation.isolcpus", "\"2-3\"", "isolcpus", "fail", "isolcpus=2-3 lacks the flag managed_irq"},
	{0, "isolation.isolcpus", "\"domain,managed_irq,3\"", "isolcpus", "fail",
	 "CPU 2 (the peer's) is not in isolcpus=domain,managed_irq,3"},
	{0, "isolation.nohz_full", "\"3\"", "nohz_full", "fail", "CPU 2 (the peer's) is not in nohz_full=3"},
	{0, "isolation.rcu_nocbs", "null", "rcu_nocbs", "fail", "no rcu_nocbs"},
	{1, "lease.mode", "\"shared\"", "lease", "fail", "the CPUs were leased shared, not exclusive"},
	{1, "lease", "{\"not_taken\": \"--degrade: no lease directory\"}", "lease", "fail",
	 "no CPU lease was taken: --degrade: no lease directory"},
	{1, "lease.cpus", "\"0,2\"", "lease", "fail", "CPU 3 (the sender's) was not leased"},
	{0, "cpus.2.smt_siblings", "\"2-3\"", "smt_siblings", "fail",
	 "CPU 2 (the peer's) shares its core with CPU 3 (the sender's)"},
	{0, "cpus.3.smt_siblings", "\"3,7\"", "smt_siblings", "fail",
	 "CPU 3 (the sender's) shares its core with CPU 7, which is not isolated"},
	{1, "controller.cpus", "[0, 2]", "controller", "fail", "CPU 2 is the peer's and the controller's"},
	{1, "processes.1.profile", "{\"event\": \"cpu-clock\"}", "profiler", "fail", "perf attached to the sender (event cpu-clock)"},
	{1, "observers.0.outputs.1", "{\"when\": \"during\"}", "live_observers", "fail",
	 "observer stack sampled the sender 1 time during the run"},
	{0, "cpus.2.governor", "\"powersave\"", "governor", "fail",
	 "CPU 2 (the peer's) has governor powersave (the rules allow performance)"},
	{0, "cpus.3.energy_performance_preference", "\"balance_power\"", "energy_performance_preference", "fail",
	 "CPU 3 (the sender's) has energy_performance_preference balance_power"},
	{0, "turbo.intel_pstate_no_turbo", "\"0\"", "turbo", "fail", "turbo is on (the rules want it off)"},
	{0, "transparent_hugepage", "\"[always] madvise never\"", "transparent_hugepage", "fail",
	 "transparent_hugepage is always (the rules allow never)"},
	{0, "numa_balancing", "\"1\"", "numa_balancing", "fail", "numa_balancing is 1"},
	{0, "clocksource", "\"hpet\"", "clocksource", "fail", "clocksource is hpet (the rules allow tsc)"},
	{1, "cpu_dma_latency.held", "false", "pm_qos", "fail", "arm baseline declares cpu_dma_latency 0 us; the run did not hold it"},
	{0, "interrupts.24.effective_affinity_list", "\"2\"", "device_irqs", "fail",
	 "IRQ 24 (IO-APIC 5-edge ACPI:Ged) is affined to CPU 2 (the peer's)"},
	{1, "cpus.after.interrupts.LOC.3", "1209", "interrupts", "fail",
	 "CPU 3 (the sender's) took 1,204 LOC interrupts during the run (bound 0)"},
	{1, "cpus.after.interrupts.24.2", "1", "interrupts", "fail", "CPU 2 (the peer's) took 1 IRQ 24 interrupt during the run"},
	{0, "watchdog_cpumask", "\"0-3\"", "watchdog", "fail", "the watchdog runs on CPU 2 (the peer's)"},
	{1, "processes.0.after.status.nonvoluntary_ctxt_switches", "4", "involuntary_switches", "fail",
	 "the peer was switched out involuntarily 3 times during the run (bound 0)"},
	{1, "interference.after.cpus.3.smi", "8", "smi", "fail", "CPU 3 (the sender's) took 3 SMIs during the run (MSR 0x34; bound 0)"},
	{1, "interference.after.cpus.2.thermal_throttle.core_throttle_count", "3", "thermal_throttle", "fail",
	 "CPU 2 (the peer's): core_throttle_count rose by 1 during the run (bound 0)"},
	{1, "interference.after.cpus.3.aperf", "1900", "effective_frequency", "fail",
	 "CPU 3 (the sender's) ran at 90% of its base frequency during the run (APERF/MPERF; the rules allow 95-105%)"},
	{1, "interference.after.cpus.2.stat.steal", "3", "steal", "fail",
	 "CPU 2 (the peer's) had 3 ticks (30 ms) stolen by the hypervisor during the run"},
	{1, "interference.after.vmstat.pswpout", "12", "swapping", "fail", "the host swapped 0 pages in and 8 out during the run"},
	{1, "interference.after.pressure.io.some_total_us", "200000", "pressure", "fail",
	 "the host's io pressure: some task stalled 199 ms of the run's 1,000 ms (199 per mille; bound 10"},
	/* the evidence not recorded: unknown, never quiet */
	{1, "interference.after.cpus.3.smi", "\"unavailable: /dev/cpu/3/msr: No such file or directory\"", "smi", "unknown",
	 "CPU 3 (the sender's): no SMI count (unavailable: /dev/cpu/3/msr: No such file or directory)"},
	{1, "interference.before.pressure.cpu", "\"unavailable: /proc/pressure/cpu: No such file or directory\"", "pressure",
	 "unknown", "no cpu pressure (unavailable: /proc/pressure/cpu"},
	{0, "isolation.isolcpus", NULL, "isolcpus", "unknown", "records no isolation.isolcpus"},
	{0, "cpus.3.smt_siblings", NULL, "smt_siblings", "unknown", "CPU 3 (the sender's): its SMT siblings are not recorded"},
	{0, "cpus.2.governor", NULL, "governor", "unknown", "CPU 2 (the peer's): governor not recorded"},
	{0, "cpus.2.governor", "\"unavailable: /sys/devices/system/cpu/cpu2/cpufreq/scaling_governor: No such file or directory\"",
	 "governor", "unknown", "governor unavailable: /sys/devices/system/cpu/cpu2/cpufreq/scaling_governor"},
	{0, "turbo", NULL, "turbo", "unknown", "turbo is not recorded"},
	{0, "transparent_hugepage", NULL, "transparent_hugepage", "unknown", "transparent_hugepage not recorded"},
	{0, "interrupts.24.effective_affinity_list", NULL, "device_irqs", "pass", ""}, /* smp_affinity_list stands in */
	{0, "interrupts", NULL, "device_irqs", "unknown", "records no interrupts"},
	{0, "watchdog_cpumask", NULL, "watchdog", "unknown", "watchdog_cpumask not recorded"},
	{1, "lease", NULL, "lease", "unknown", "run.json records no CPU lease"},
	{1, "controller", NULL, "controller", "unknown", "run.json records no controller CPUs"},
	{1, "cpu_dma_latency", NULL, "pm_qos", "unknown", "does not record whether it was held"},
	{1, "cpus", NULL, "interrupts", "unknown", "run.json records no interrupt counts"},
	{1, "cpus.before.interrupts.NMI", NULL, "interrupts", "unknown", "CPU 2 (the peer's): the NMI count is not recorded"},
	{1, "processes.1.before", NULL, "involuntary_switches", "unknown",
	 "the sender's involuntary context switches are not recorded"},
	/* counts no host makes (an edited run.json): not recorded, never overflowed */
	{1, "cpus.after.interrupts.LOC.3", "9223372036854775807", "interrupts", "unknown",
	 "CPU 3 (the sender's): the LOC count is not recorded before and after the run"},
	{1, "processes.0.before.status.nonvoluntary_ctxt_switches", "-9223372036854775807", "involuntary_switches", "unknown",
	 "the peer's involuntary context switches are not recorded"},
};

static void rules_refused(const json_t *good, const char *key, const char *value, const char *want)
{
	json_t *r = json_deep_copy(good);
	if (value)
		json_object_set_new(r, key, json_loads(value, JSON_DECODE_ANY, NULL));
	else
		json_object_del(r, key);
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_grades_check(r, "rules.json", &err), EV_USAGE);
	if (!strstr(err.text, want))
		fprintf(stderr, "rules with %s=%s: expected \"%s\", found \"%s\"\n", key, value ? value : "(removed)", want,
			err.text);
	CHECK(strstr(err.text, want) != NULL);
	json_decref(r);
}

int main(void)
{
	json_t *rules = ev_grades_default();
	json_t *policy = json_loads(quiet_policy, 0, NULL), *run = json_loads(quiet_run, 0, NULL),
	       *plan = json_loads(quiet_plan, 0, NULL);
	CHECK(rules && policy && run && plan);
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_grades_check(rules, "default", &err), EV_OK);

	json_t *merged = judge(rules, policy, run, plan);
	CHECK_STR_EQ(ev_grade_of(merged), "quiet");
	size_t conditions = 0;
	while (ev_grade_conditions[conditions])
		conditions++;
	CHECK_INT_EQ(json_array_size(merged), conditions);
	json_decref(merged);

	for (size_t i = 0; i < sizeof flips / sizeof *flips; i++) {
		const struct flip *f = &flips[i];
		json_t *p = json_deep_copy(policy), *r = json_deep_copy(run);
		json_t *doc = f->on_run ? r : p;
		if (f->value)
			set(doc, f->path, json_loads(f->value, JSON_DECODE_ANY, NULL));
		else
			drop(doc, f->path);
		char what[160];
		snprintf(what, sizeof what, "%s %s=%s", f->on_run ? "run.json" : "policy.json", f->path,
			 f->value ? f->value : "(removed)");
		merged = judge(rules, p, r, plan);
		if (strcmp(f->verdict, "pass") == 0)
			CHECK_STR_EQ(ev_grade_of(merged), "quiet");
		else
			only(what, merged, f->condition, f->verdict, f->evidence);
		json_decref(merged);
		json_decref(p);
		json_decref(r);
	}

	/* no policy at all: every host condition unknown; no plan: PM QoS unknown */
	merged = judge(rules, NULL, run, NULL);
	CHECK_STR_EQ(ev_grade_of(merged), "diagnostic");
	size_t i, unknown = 0;
	json_t *v;
	json_array_foreach(merged, i, v) unknown += strcmp(json_string_value(json_object_get(v, "verdict")), "unknown") == 0;
	CHECK_INT_EQ(unknown, 13);
	json_decref(merged);

	/* a condition the rules leave null is not graded: its flip keeps the run quiet */
	json_t *lax = json_deep_copy(rules);
	json_object_set_new(lax, "governor", json_null());
	json_object_set_new(lax, "interrupts", json_pack("{s:i, s:i, s:i}", "device", 0, "other", 0, "LOC", 2000));
	json_t *p = json_deep_copy(policy), *r = json_deep_copy(run);
	set(p, "cpus.2.governor", json_string("powersave"));
	set(r, "cpus.after.interrupts.LOC.3", json_integer(1209));
	CHECK_INT_EQ(ev_grades_check(lax, "lax", &err), EV_OK);
	merged = judge(lax, p, r, plan);
	CHECK_STR_EQ(ev_grade_of(merged), "quiet");
	CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(merged, 8), "verdict")), "not graded");
	json_decref(merged);
	json_decref(p);
	json_decref(r);
	json_decref(lax);

	/* what a plan alone rules out, before it runs */
	json_t *all = json_array();
	ev_grade_plan(rules, plan, all);
	merged = ev_grade_merge(all);
	CHECK_STR_EQ(ev_grade_of(merged), "quiet");
	json_decref(merged);
	json_decref(all);
	json_t *loud = json_deep_copy(plan);
	json_object_del(json_array_get(json_object_get(loud, "observers"), 0), "when");
	set(loud, "cells.0.sender.profile", json_pack("{s:s}", "event", "cycles"));
	all = json_array();
	ev_grade_plan(rules, loud, all);
	merged = ev_grade_merge(all);
	CHECK_STR_EQ(ev_grade_of(merged), "diagnostic");
	CHECK_STR_EQ(json_string_value(json_array_get(json_object_get(json_array_get(merged, 0), "evidence"), 0)),
		     "cell spin profiles the sender (perf attached)");
	CHECK_STR_EQ(json_string_value(json_array_get(json_object_get(json_array_get(merged, 1), "evidence"), 0)),
		     "observer stack samples during the run (its \"when\" is the default, with \"during\")");
	json_decref(merged);
	json_decref(all);
	json_decref(loud);

	/* the rules themselves */
	rules_refused(rules, "turbo", NULL, "rules.json: \"turbo\": missing (every condition is stated, null when not graded)");
	rules_refused(rules, "turbo", "\"maybe\"", "rules.json: \"turbo\": expected \"off|on\"");
	rules_refused(rules, "governer", "[\"performance\"]", "rules.json: \"governer\": not a grading rule");
	rules_refused(rules, "interrupts", "{\"LOC\": 0}", "rules.json: \"interrupts\": expected {\"device\": N, \"other\": N");
	rules_refused(rules, "interrupts", "{\"device\": 0, \"other\": -1}", "rules.json: \"interrupts\": \"other\": expected a count from 0");
	rules_refused(rules, "governor", "[]", "rules.json: \"governor\": expected a list of the values allowed");
	rules_refused(rules, "format", "\"evidence-grades/2\"", "rules.json: \"format\": expected \"evidence-grades/1\", found evidence-grades/2");
	rules_refused(rules, "require", "\"timing\"", "rules.json: \"require\": expected \"quiet\" or \"any\"");
	rules_refused(rules, "version", "0", "rules.json: \"version\": expected an integer from 1");
	rules_refused(rules, "name", "\"has space\"", "rules.json: \"name\": expected 1 to 40 of A-Za-z0-9_.-");

	json_decref(rules);
	json_decref(policy);
	json_decref(run);
	json_decref(plan);
	return check_exit("test_grade_names_each_condition_that_keeps_a_run_from_quiet");
}
