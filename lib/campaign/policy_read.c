/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/campaign/policy_read.h"
#include "lib/core/json.h"

ev_status ev_policy_load(const char *path, struct ev_policy *policy, uint8_t sha256[EV_SHA256_LEN],
			 struct ev_error *err)
{
	policy->doc = NULL;
	return ev_json_load(path, EV_POLICY_FORMAT, 0, &policy->doc, sha256, NULL, NULL, err);
}

void ev_policy_free(struct ev_policy *policy)
{
	json_decref(policy->doc);
	policy->doc = NULL;
}

const json_t *ev_policy_value(const struct ev_policy *policy, const char *key)
{
	return policy ? json_object_get(policy->doc, key) : NULL;
}

const char *ev_policy_text(const struct ev_policy *policy, const char *key)
{
	return json_string_value(ev_policy_value(policy, key));
}

const char *ev_policy_kernel(const struct ev_policy *policy, const char *which)
{
	return json_string_value(json_object_get(ev_policy_value(policy, "kernel"), which));
}

int ev_policy_isolation(const struct ev_policy *policy, const char *param, const char **value)
{
	const json_t *iso = ev_policy_value(policy, "isolation");
	const json_t *v = json_object_get(iso, param);
	*value = NULL;
	if (!json_is_object(iso) || !v || (!json_is_null(v) && !json_is_string(v)))
		return -1;
	if (json_is_null(v))
		return 0;
	*value = json_string_value(v);
	return 1;
}

const json_t *ev_policy_cpus(const struct ev_policy *policy)
{
	const json_t *cpus = ev_policy_value(policy, "cpus");
	return json_is_object(cpus) ? cpus : NULL;
}

const json_t *ev_policy_cpu_value(const struct ev_policy *policy, const char *cpu, const char *field)
{
	return json_object_get(json_object_get(ev_policy_cpus(policy), cpu), field);
}

const char *ev_policy_cpu(const struct ev_policy *policy, int cpu, const char *field)
{
	char key[16];
	snprintf(key, sizeof key, "%d", cpu);
	return json_string_value(ev_policy_cpu_value(policy, key, field));
}

static int zero_or_one(const char *s)
{
	return s && (!strcmp(s, "0") || !strcmp(s, "1"));
}

int ev_policy_turbo(const struct ev_policy *policy, const char **raw)
{
	const json_t *t = ev_policy_value(policy, "turbo");
	const char *no_turbo = json_string_value(json_object_get(t, "intel_pstate_no_turbo"));
	const char *boost = json_string_value(json_object_get(t, "cpufreq_boost"));
	if (raw)
		*raw = no_turbo ? no_turbo : boost;
	if (zero_or_one(no_turbo))
		return strcmp(no_turbo, "1") != 0;
	if (zero_or_one(boost))
		return strcmp(boost, "0") != 0;
	return -1;
}

const json_t *ev_policy_interrupts(const struct ev_policy *policy)
{
	const json_t *irqs = ev_policy_value(policy, "interrupts");
	return json_is_object(irqs) ? irqs : NULL;
}

const char *ev_policy_irq_affinity(const json_t *row)
{
	const char *eff = json_string_value(json_object_get(row, "effective_affinity_list"));
	if (eff && !ev_policy_unavailable(eff))
		return eff;
	const char *smp = json_string_value(json_object_get(row, "smp_affinity_list"));
	return smp && !ev_policy_unavailable(smp) ? smp : NULL;
}

const char *ev_policy_irq_description(const json_t *row)
{
	return json_string_value(json_object_get(row, "description"));
}

int ev_policy_unavailable(const char *value)
{
	return value && strncmp(value, "unavailable", 11) == 0;
}
