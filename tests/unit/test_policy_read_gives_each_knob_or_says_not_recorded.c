/* SPDX-License-Identifier: Apache-2.0 */
/* policy_read: a policy snapshot's host, kernel, isolation (a list, none
 * on the command line, or not recorded), each CPU's knobs, turbo from
 * either of its files, a device IRQ's affinity (effective, else smp,
 * never an unreadable one) and what capture could not read; NULL or -1
 * for what is absent or mistyped, never a crash. */
#include "config.h"

#include "check.h"
#include "lib/campaign/policy_read.h"

int main(void)
{
	struct ev_policy p = {json_loads(
		"{\"format\": \"evidence-policy/1\", \"host\": \"lab1\", \"kernel\": {\"release\": \"6.1.0\", \"version\": \"#1 SMP\"},"
		" \"isolation\": {\"isolcpus\": \"domain,managed_irq,2-3\", \"nohz_full\": null, \"rcu_nocbs\": 3},"
		" \"cpus\": {\"2\": {\"governor\": \"performance\", \"energy_performance_preference\": \"unavailable: /sys/x: No such file\"}},"
		" \"turbo\": {\"cpufreq_boost\": \"0\"}, \"watchdog_cpumask\": \"0-1\","
		" \"interrupts\": {\"24\": {\"description\": \"IO-APIC 5-edge\", \"effective_affinity_list\": \"unavailable: /proc/irq/24: EIO\","
		"                           \"smp_affinity_list\": \"0-1\"},"
		"                  \"25\": {\"effective_affinity_list\": \"3\", \"smp_affinity_list\": \"0-3\"}, \"26\": {}}}",
		0, NULL)};
	CHECK(p.doc != NULL);
	CHECK_STR_EQ(ev_policy_text(&p, "host"), "lab1");
	CHECK_STR_EQ(ev_policy_kernel(&p, "release"), "6.1.0");
	CHECK_STR_EQ(ev_policy_text(&p, "watchdog_cpumask"), "0-1");
	CHECK(ev_policy_text(&p, "kernel") == NULL && ev_policy_value(&p, "kernel") != NULL);
	const char *v;
	CHECK_INT_EQ(ev_policy_isolation(&p, "isolcpus", &v), 1);
	CHECK_STR_EQ(v, "domain,managed_irq,2-3");
	CHECK_INT_EQ(ev_policy_isolation(&p, "nohz_full", &v), 0);
	CHECK(v == NULL);
	CHECK_INT_EQ(ev_policy_isolation(&p, "rcu_nocbs", &v), -1);
	CHECK_INT_EQ(ev_policy_isolation(&p, "irqaffinity", &v), -1);
	CHECK_STR_EQ(ev_policy_cpu(&p, 2, "governor"), "performance");
	CHECK(ev_policy_unavailable(ev_policy_cpu(&p, 2, "energy_performance_preference")));
	CHECK(!ev_policy_unavailable(ev_policy_cpu(&p, 2, "governor")) && !ev_policy_unavailable(NULL));
	CHECK(ev_policy_cpu(&p, 3, "governor") == NULL);
	const char *raw;
	CHECK_INT_EQ(ev_policy_turbo(&p, &raw), 0);
	CHECK_STR_EQ(raw, "0");
	const json_t *irqs = ev_policy_interrupts(&p);
	CHECK_STR_EQ(ev_policy_irq_affinity(json_object_get(irqs, "24")), "0-1");
	CHECK_STR_EQ(ev_policy_irq_description(json_object_get(irqs, "24")), "IO-APIC 5-edge");
	CHECK_STR_EQ(ev_policy_irq_affinity(json_object_get(irqs, "25")), "3");
	CHECK(ev_policy_irq_affinity(json_object_get(irqs, "26")) == NULL);

	/* intel_pstate's file first; neither as 0 or 1: not recorded */
	json_object_set_new(p.doc, "turbo", json_pack("{s:s, s:s}", "intel_pstate_no_turbo", "1", "cpufreq_boost", "1"));
	CHECK_INT_EQ(ev_policy_turbo(&p, NULL), 0);
	json_object_set_new(p.doc, "turbo", json_pack("{s:s}", "cpufreq_boost", "unavailable: /sys/boost: ENOENT"));
	CHECK_INT_EQ(ev_policy_turbo(&p, &raw), -1);
	CHECK_STR_EQ(raw, "unavailable: /sys/boost: ENOENT");

	/* mistyped or absent */
	json_object_set_new(p.doc, "isolation", json_string("none"));
	json_object_set_new(p.doc, "cpus", json_integer(2));
	json_object_set_new(p.doc, "interrupts", json_array());
	CHECK_INT_EQ(ev_policy_isolation(&p, "isolcpus", &v), -1);
	CHECK(ev_policy_cpus(&p) == NULL && ev_policy_cpu(&p, 2, "governor") == NULL);
	CHECK(ev_policy_interrupts(&p) == NULL);
	CHECK(ev_policy_text(NULL, "host") == NULL && ev_policy_turbo(NULL, NULL) == -1);
	ev_policy_free(&p);
	return check_exit("test_policy_read_gives_each_knob_or_says_not_recorded");
}
