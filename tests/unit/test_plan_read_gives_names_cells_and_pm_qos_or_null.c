/* SPDX-License-Identifier: Apache-2.0 */
/* plan_read: a plan's name, its cells in order, what PM QoS each arm
 * declares (none for an arm without cpu_dma_latency, or for the baseline
 * of a plan without arms; -1 for an arm the plan lacks) and its grading
 * rules; NULL, 0 or -1 for what is absent or mistyped, never a crash; a
 * file that is not a plan is refused. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "lib/campaign/plan.h"

int main(void)
{
	char dir[] = "/tmp/evidence-plan-read-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(chdir(dir) == 0);
	FILE *f = fopen("plan.json", "w");
	fputs("{\"format\": \"evidence-plan/1\", \"name\": \"demo\", \"arms\": [{\"name\": \"baseline\"},"
	      " {\"name\": \"dma0\", \"cpu_dma_latency\": 0}, {\"name\": \"odd\", \"cpu_dma_latency\": \"0\"}],"
	      " \"cells\": [{\"name\": \"spin\"}, {\"name\": \"epoll\"}, {}], \"grades\": {\"name\": \"lab\"}}\n", f);
	fclose(f);
	struct ev_plan plan;
	struct ev_error err;
	ev_error_clear(&err);
	uint8_t d[EV_SHA256_LEN];
	CHECK_INT_EQ(ev_plan_load("plan.json", &plan, d, &err), EV_OK);
	CHECK_STR_EQ(ev_plan_name(&plan), "demo");
	CHECK_INT_EQ(ev_plan_cell_count(&plan), 3);
	CHECK_STR_EQ(ev_plan_cell_name(&plan, 0), "spin");
	CHECK_STR_EQ(ev_plan_cell_name(&plan, 1), "epoll");
	CHECK(ev_plan_cell_name(&plan, 2) == NULL && ev_plan_cell_name(&plan, 3) == NULL);
	long long us = -5;
	CHECK_INT_EQ(ev_plan_arm_pm_qos(&plan, "baseline", &us), 0);
	CHECK_INT_EQ(ev_plan_arm_pm_qos(&plan, "dma0", &us), 1);
	CHECK_INT_EQ(us, 0);
	CHECK_INT_EQ(ev_plan_arm_pm_qos(&plan, "odd", &us), 0);
	CHECK_INT_EQ(ev_plan_arm_pm_qos(&plan, "missing", &us), -1);
	CHECK_INT_EQ(ev_plan_arm_pm_qos(NULL, "baseline", &us), -1);
	CHECK_STR_EQ(json_string_value(json_object_get(ev_plan_grades(&plan), "name")), "lab");
	ev_plan_free(&plan);

	/* without arms: one, baseline, holding nothing */
	f = fopen("bare.json", "w");
	fputs("{\"format\": \"evidence-plan/1\", \"name\": 7, \"cells\": \"none\"}\n", f);
	fclose(f);
	CHECK_INT_EQ(ev_plan_load("bare.json", &plan, NULL, &err), EV_OK);
	CHECK(ev_plan_name(&plan) == NULL && ev_plan_grades(&plan) == NULL);
	CHECK_INT_EQ(ev_plan_cell_count(&plan), 0);
	CHECK_INT_EQ(ev_plan_arm_pm_qos(&plan, "baseline", &us), 0);
	CHECK_INT_EQ(ev_plan_arm_pm_qos(&plan, "dma0", &us), -1);
	ev_plan_free(&plan);

	/* not a plan */
	f = fopen("seal.json", "w");
	fputs("{\"format\": \"evidence-seal/1\"}\n", f);
	fclose(f);
	CHECK(ev_plan_load("seal.json", &plan, NULL, &err) != EV_OK);
	CHECK(strstr(err.text, "seal.json") != NULL);
	ev_plan_free(&plan);
	unlink("plan.json");
	unlink("bare.json");
	unlink("seal.json");
	CHECK(chdir("/") == 0 && rmdir(dir) == 0);
	return check_exit("test_plan_read_gives_names_cells_and_pm_qos_or_null");
}
