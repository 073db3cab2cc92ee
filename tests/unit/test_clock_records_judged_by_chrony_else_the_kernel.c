/* SPDX-License-Identifier: Apache-2.0 */
/* clocks_read and the interference grade: a clock record is judged by
 * chrony's tracking when chronyd answered (its error |offset| + root
 * dispersion + root delay / 2), else by the kernel (its maximum error);
 * not synchronised when either says so; a record with figures no clock
 * has, or counters no host makes, is named "edited?", never overflowed
 * into a verdict; chronyc's seconds become whole nanoseconds. */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "check.h"
#include "lib/campaign/clocks_read.h"
#include "lib/campaign/grade.h"
#include "lib/process/clocks.h"

static struct ev_clock_judgement judged(const char *text)
{
	struct ev_clock_judgement j;
	memset(&j, 0, sizeof j);
	json_t *record = json_loads(text, 0, NULL);
	CHECK(record != NULL);
	ev_clocks_judge(record, &j);
	json_decref(record);
	return j;
}

int main(void)
{
	long long ns;
	CHECK(ev_clocks_seconds_ns("-0.000002154", &ns) == 0 && ns == -2154);
	CHECK(ev_clocks_seconds_ns("1.5", &ns) == 0 && ns == 1500000000);
	CHECK(ev_clocks_seconds_ns("0.0000000019", &ns) == 0 && ns == 1);
	CHECK(ev_clocks_seconds_ns("12", &ns) == 0 && ns == 12000000000LL);
	CHECK(ev_clocks_seconds_ns("", &ns) == -1 && ev_clocks_seconds_ns("-", &ns) == -1);
	CHECK(ev_clocks_seconds_ns("1e3", &ns) == -1 && ev_clocks_seconds_ns("99999999999", &ns) == -1);

	static const char chrony[] =
		"{\"chrony\": {\"synchronised\": true, \"leap_status\": \"Normal\", \"stratum\": 2, \"reference\": \"10.0.0.1\","
		" \"reference_id\": \"0A000001\", \"system_fast_ns\": -300, \"root_delay_ns\": 1000, \"root_dispersion_ns\": 200},"
		" \"kernel\": {\"synchronised\": false, \"state\": \"TIME_ERROR\", \"maxerror_us\": 16000000}}";
	struct ev_clock_judgement j = judged(chrony);
	CHECK_INT_EQ(j.synchronised, 1);
	CHECK(j.error_ns == 300 + 200 + 500);
	CHECK_STR_EQ(j.how, "chrony: synchronised to 10.0.0.1 (stratum 2), the clock 300 ns slow, root delay 1.0 us, root dispersion 200 ns: within 1.0 us");

	j = judged("{\"chrony\": {\"synchronised\": false, \"leap_status\": \"Not synchronised\", \"stratum\": 0,"
		   " \"system_fast_ns\": 0, \"root_delay_ns\": 0, \"root_dispersion_ns\": 0},"
		   " \"kernel\": {\"synchronised\": true, \"state\": \"TIME_OK\", \"maxerror_us\": 5}}");
	CHECK_INT_EQ(j.synchronised, 0);
	CHECK_STR_EQ(j.how, "chrony says the clock is not synchronised (leap status Not synchronised, stratum 0)");

	j = judged("{\"chrony\": \"unavailable: chronyc tracking: 506 Cannot talk to daemon\","
		   " \"kernel\": {\"synchronised\": true, \"state\": \"TIME_OK\", \"maxerror_us\": 1500}}");
	CHECK(j.synchronised == 1 && j.error_ns == 1500000);
	CHECK_STR_EQ(j.how, "the kernel: synchronised, maximum error 1.5 ms");

	j = judged("{\"chrony\": \"unavailable: x\", \"kernel\": {\"synchronised\": false, \"state\": \"TIME_ERROR\", \"maxerror_us\": 16000000}}");
	CHECK_INT_EQ(j.synchronised, 0);
	CHECK_STR_EQ(j.how, "the kernel says the clock is not synchronised (TIME_ERROR), and no chronyd answered");

	j = judged("{\"chrony\": \"unavailable: x\", \"kernel\": \"unavailable: ntp_adjtime: Operation not permitted\"}");
	CHECK_INT_EQ(j.synchronised, 0);
	CHECK_STR_EQ(j.how, "no clock state is recorded (unavailable: ntp_adjtime: Operation not permitted)");

	/* figures no clock has: not a verdict's arithmetic */
	j = judged("{\"chrony\": {\"synchronised\": true, \"leap_status\": \"Normal\", \"stratum\": 2,"
		   " \"system_fast_ns\": -9223372036854775807, \"root_delay_ns\": 9223372036854775807, \"root_dispersion_ns\": 1}}");
	CHECK_INT_EQ(j.synchronised, 0);
	CHECK_STR_EQ(j.how, "chrony's tracking is recorded with figures no clock has (edited?)");
	j = judged("{\"kernel\": {\"synchronised\": true, \"state\": \"TIME_OK\", \"maxerror_us\": 9223372036854775807}}");
	CHECK_INT_EQ(j.synchronised, 0);

	/* counters no host makes: unknown, named */
	json_t *rules = ev_grades_default();
	json_t *snap0 = json_loads("{\"monotonic_ns\": 0, \"cpus\": {\"1\": {\"smi\": -9223372036854775807}}}", 0, NULL);
	json_t *snap1 = json_loads("{\"monotonic_ns\": 1000, \"cpus\": {\"1\": {\"smi\": 9223372036854775807}}}", 0, NULL);
	json_t *interference = json_pack("{s:o, s:o}", "before", snap0, "after", snap1);
	struct ev_grade_cpus cpus;
	memset(&cpus, 0, sizeof cpus);
	CPU_ZERO(&cpus.sides);
	CPU_SET(1, &cpus.sides);
	cpus.have_sides = 1;
	json_t *out = json_array();
	ev_grade_interference(rules, interference, &cpus, out);
	const json_t *smi = json_array_get(out, 0);
	CHECK_STR_EQ(json_string_value(json_object_get(smi, "condition")), "smi");
	CHECK_STR_EQ(json_string_value(json_object_get(smi, "verdict")), "unknown");
	CHECK_STR_EQ(json_string_value(json_array_get(json_object_get(smi, "evidence"), 0)),
		     "CPU 1 (a side's): no SMI count (a difference no counter makes (edited?))");
	json_t *figures = ev_grade_interference_figures(interference, &cpus);
	CHECK(json_is_null(json_object_get(figures, "smi")));
	json_decref(figures);
	json_decref(out);
	json_decref(interference);
	json_decref(rules);
	return check_exit("test_clock_records_judged_by_chrony_else_the_kernel");
}
