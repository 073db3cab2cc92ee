/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/interference.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/process/observe.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif


static json_t *unavailable(const char *path, const char *why)
{
	char text[512];
	snprintf(text, sizeof text, "unavailable: %s: %s", path, why);
	return json_string(text);
}

/* A /proc or /sys text file whole (at most 1 MiB), or NULL with *why
 * set to "unavailable: PATH: REASON". */
static char *text_of(const char *path, json_t **why)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		*why = unavailable(path, strerror(errno));
		return NULL;
	}
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1 || cap >= (1 << 20))
			break;
		char *bigger = realloc(buf, cap *= 2);
		if (!bigger) {
			free(buf);
			buf = NULL;
		}
		buf = bigger;
	}
	int failed = !buf || ferror(f);
	int e = errno;
	fclose(f);
	if (failed) {
		*why = unavailable(path, buf ? strerror(e) : "out of memory");
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	return buf;
}

static json_t *count_file(const char *path)
{
	json_t *why = NULL;
	char *t = text_of(path, &why);
	if (!t)
		return why;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(t, &end, 10);
	json_t *out = end != t && errno == 0 && (*end == '\n' || *end == 0) && v <= INT64_MAX
			      ? json_integer((json_int_t)v)
			      : unavailable(path, "not a count");
	free(t);
	return out;
}

/* One MSR of a CPU through the msr driver (pread at the register's
 * number), with what a reader needs to know when it cannot be read. */
static json_t *msr(int cpu, unsigned reg)
{
	char path[64];
	snprintf(path, sizeof path, "/dev/cpu/%d/msr", cpu);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		char why[200];
		snprintf(why, sizeof why, "%s%s", strerror(e),
			 e == ENOENT ? " (the msr module is not loaded: modprobe msr; a VM may have none)"
			 : e == EACCES || e == EPERM ? " (reading MSRs needs root and CAP_SYS_RAWIO)"
						     : "");
		return unavailable(path, why);
	}
	uint64_t v = 0;
	ssize_t got = pread(fd, &v, sizeof v, reg);
	int e = errno;
	close(fd);
	if (got != (ssize_t)sizeof v) {
		char what[200];
		snprintf(what, sizeof what, "MSR 0x%x: %s", reg,
			 got < 0 && e == EIO ? "this CPU does not have it" : got < 0 ? strerror(e) : "short read");
		return unavailable(path, what);
	}
	return v <= INT64_MAX ? json_integer((json_int_t)v) : unavailable(path, "a count past 2^63");
}

static json_t *line_of(const char *path);

/* Each file of dir whose name ends in suffix ("" for all), read by read,
 * by name; absent says why a missing dir is missing. */
static json_t *files_of(const char *dir, const char *suffix, json_t *(*read)(const char *), const char *absent)
{
	DIR *d = opendir(dir);
	if (!d) {
		char why[200];
		snprintf(why, sizeof why, "%s%s", strerror(errno), errno == ENOENT ? absent : "");
		return unavailable(dir, why);
	}
	json_t *o = json_object();
	struct dirent *ent;
	size_t k = strlen(suffix);
	while ((ent = readdir(d)) != NULL) {
		size_t n = strlen(ent->d_name);
		if (ent->d_name[0] == '.' || n <= k || strcmp(ent->d_name + n - k, suffix) != 0)
			continue;
		char path[400];
		snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
		json_object_set_new(o, ent->d_name, read(path));
	}
	closedir(d);
	return o;
}

/* Every *_count file of the CPU's thermal_throttle directory. */
static json_t *thermal_throttle(int cpu)
{
	char dir[96];
	snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d/thermal_throttle", cpu);
	return files_of(dir, "_count", count_file, " (no thermal monitoring here: a VM, or not an x86 CPU)");
}

/* /proc/stat's line of each CPU, by field name (clock ticks). */
static void proc_stat(json_t *cpus)
{
	static const char *const fields[] = {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"};
	json_t *why = NULL;
	char *t = text_of("/proc/stat", &why);
	const char *key;
	json_t *cpu;
	json_object_foreach(cpus, key, cpu) {
		if (!t) {
			json_object_set(cpu, "stat", why);
			continue;
		}
		char prefix[24];
		int len = snprintf(prefix, sizeof prefix, "\ncpu%s ", key);
		const char *line = strstr(t, prefix);
		if (!line) {
			json_object_set_new(cpu, "stat", unavailable("/proc/stat", "no line for this CPU (offline?)"));
			continue;
		}
		json_t *o = json_object();
		const char *p = line + len;
		for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			json_object_set_new(o, fields[f], json_integer((json_int_t)v));
			p = end;
		}
		json_object_set_new(cpu, "stat", o);
	}
	json_decref(why);
	free(t);
}

/* /proc/softirqs: the count of each row for each CPU, by the header's columns. */
static void softirqs(json_t *cpus)
{
	json_t *why = NULL;
	char *t = text_of("/proc/softirqs", &why);
	const char *key;
	json_t *cpu;
	json_object_foreach(cpus, key, cpu) json_object_set_new(cpu, "softirqs", t ? json_object() : json_incref(why));
	json_decref(why);
	if (!t)
		return;
	int column[1024];
	char *save = NULL, *line = strtok_r(t, "\n", &save);
	size_t ncols = ev_observe_cpu_columns(line, column, 1024);
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		while (*line == ' ')
			line++;
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		char *p = colon + 1;
		for (size_t c = 0; c < ncols; c++) {
			char *end, name[16];
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
			snprintf(name, sizeof name, "%d", column[c]);
			json_t *row = json_object_get(json_object_get(cpus, name), "softirqs");
			if (row)
				json_object_set_new(row, line, json_integer((json_int_t)v));
		}
	}
	free(t);
}

/* The host's memory events that stall a process wherever it runs. */
static json_t *vmstat(void)
{
	static const char *const keys[] = {
		"pswpin", "pswpout", "pgmajfault", "thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
		"thp_collapse_alloc_failed", "thp_split_page", "compact_stall", "compact_fail", "compact_success",
		"numa_hint_faults", "numa_pages_migrated"};
	json_t *why = NULL;
	char *t = text_of("/proc/vmstat", &why);
	if (!t)
		return why;
	json_t *o = json_object();
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		size_t n = strlen(keys[k]);
		for (const char *at = t; (at = strstr(at, keys[k])) != NULL; at += n)
			if ((at == t || at[-1] == '\n') && at[n] == ' ') {
				json_object_set_new(o, keys[k], json_integer((json_int_t)strtoull(at + n + 1, NULL, 10)));
				break;
			}
	}
	free(t);
	return o;
}

/* Pressure stall totals (us) of one resource: "some" and "full" lines. */
static json_t *pressure_of(const char *resource)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/pressure/%s", resource);
	json_t *why = NULL;
	char *t = text_of(path, &why);
	if (!t)
		return why;
	json_t *o = json_object();
	static const char *const kinds[] = {"some", "full"};
	for (int k = 0; k < 2; k++) {
		char prefix[16], key[24];
		snprintf(prefix, sizeof prefix, "%s ", kinds[k]);
		snprintf(key, sizeof key, "%s_total_us", kinds[k]);
		const char *line = strncmp(t, prefix, 5) == 0 ? t : NULL;
		if (!line) {
			char nl[24];
			snprintf(nl, sizeof nl, "\n%s", prefix);
			line = strstr(t, nl);
		}
		const char *total = line ? strstr(line, "total=") : NULL;
		if (total)
			json_object_set_new(o, key, json_integer((json_int_t)strtoull(total + 6, NULL, 10)));
	}
	free(t);
	if (!json_object_get(o, "some_total_us")) {
		json_decref(o);
		return unavailable(path, "no \"some ... total=\" line");
	}
	return o;
}

/* One powercap zone: its name and energy counter (a zone without one,
 * such as a control type's directory, is null). */
static json_t *rapl_zone(const char *zone)
{
	char path[440];
	snprintf(path, sizeof path, "%s/energy_uj", zone);
	if (access(path, F_OK) != 0)
		return json_null();
	json_t *energy = count_file(path);
	snprintf(path, sizeof path, "%s/name", zone);
	return json_pack("{s:o, s:o}", "name", line_of(path), "energy_uj", energy);
}

/* RAPL energy counters, by powercap zone. */
static json_t *rapl(void)
{
	const char *dir = "/sys/class/powercap";
	json_t *o = files_of(dir, "", rapl_zone, " (no RAPL here: a VM, or no powercap driver)");
	const char *zone;
	json_t *z;
	void *tmp;
	json_object_foreach_safe(o, tmp, zone, z) if (json_is_null(z)) json_object_del(o, zone);
	if (json_is_object(o) && json_object_size(o) == 0) {
		json_decref(o);
		return unavailable(dir, "no zone with an energy_uj counter");
	}
	return o;
}

json_t *ev_interference_snapshot(const int *cpus, size_t n)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	json_t *per_cpu = json_object();
	for (size_t i = 0; i < n; i++) {
		char key[16];
		snprintf(key, sizeof key, "%d", cpus[i]);
		if (json_object_get(per_cpu, key))
			continue;
		json_object_set_new(per_cpu, key,
				    json_pack("{s:o, s:o, s:o, s:o}", "smi", msr(cpus[i], EV_MSR_SMI_COUNT), "aperf",
					      msr(cpus[i], EV_MSR_APERF), "mperf", msr(cpus[i], EV_MSR_MPERF),
					      "thermal_throttle", thermal_throttle(cpus[i])));
	}
	proc_stat(per_cpu);
	softirqs(per_cpu);
	json_t *psi = json_object();
	static const char *const resources[] = {"cpu", "memory", "io"};
	for (int r = 0; r < 3; r++)
		json_object_set_new(psi, resources[r], pressure_of(resources[r]));
	return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o}", "monotonic_ns",
			 (json_int_t)ts.tv_sec * 1000000000 + ts.tv_nsec, "ticks_per_second",
			 (json_int_t)sysconf(_SC_CLK_TCK), "cpus", per_cpu, "vmstat", vmstat(), "pressure", psi, "rapl",
			 rapl());
}

static json_t *line_of(const char *path)
{
	json_t *why = NULL;
	char *t = text_of(path, &why);
	if (!t)
		return why;
	t[strcspn(t, "\n")] = 0;
	json_t *v = json_string(t);
	free(t);
	return v;
}

/* The microcode revision: sysfs's (x86), else /proc/cpuinfo's line. */
static json_t *microcode(void)
{
	const char *sys = "/sys/devices/system/cpu/cpu0/microcode/version";
	if (access(sys, F_OK) == 0)
		return line_of(sys);
	json_t *why = NULL;
	char *t = text_of("/proc/cpuinfo", &why);
	if (!t)
		return why;
	const char *at = strstr(t, "\nmicrocode");
	json_t *v;
	if (at && (at = strchr(at, ':')) != NULL) {
		at += 1 + strspn(at + 1, " \t");
		v = json_stringn(at, strcspn(at, "\n"));
	} else {
		v = unavailable(sys, "absent, and /proc/cpuinfo names no microcode (a VM hides it)");
	}
	free(t);
	return v;
}

static json_t *vulnerabilities(void)
{
	return files_of("/sys/devices/system/cpu/vulnerabilities", "", line_of, "");
}

/* The hypervisor, if the CPU says it runs under one: CPUID leaf 1's
 * hypervisor bit, then leaf 0x40000000's signature ("KVMKVMKVM",
 * "Microsoft Hv", "VMwareVMware", "XenVMMXenVMM"). */
static json_t *hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return json_pack("{s:s}", "cpuid", "unavailable: CPUID leaf 1 is not supported");
	if (!(c & (1u << 31)))
		return json_null();
	__cpuid(0x40000000, a, b, c, d);
	char sig[13];
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	for (int i = 0; i < 12; i++)
		if (sig[i] && (sig[i] < 0x20 || sig[i] > 0x7e))
			sig[i] = '?';
	for (size_t n = strlen(sig); n && sig[n - 1] == ' '; n--)
		sig[n - 1] = 0;
	return json_pack("{s:s}", "cpuid", sig);
#else
	if (access("/sys/hypervisor/type", F_OK) == 0)
		return json_pack("{s:o}", "type", line_of("/sys/hypervisor/type"));
	return json_pack("{s:s}", "cpuid", "unavailable: not an x86 CPU; /sys/hypervisor/type is absent");
#endif
}

void ev_interference_platform(json_t *policy)
{
	json_object_set_new(policy, "microcode", microcode());
	json_object_set_new(policy, "vulnerabilities", vulnerabilities());
	json_object_set_new(policy, "randomize_va_space", line_of("/proc/sys/kernel/randomize_va_space"));
	json_object_set_new(policy, "perf_event_max_sample_rate", line_of("/proc/sys/kernel/perf_event_max_sample_rate"));
	json_object_set_new(policy, "bios",
			    json_pack("{s:o, s:o, s:o}", "vendor", line_of("/sys/class/dmi/id/bios_vendor"), "version",
				      line_of("/sys/class/dmi/id/bios_version"), "date",
				      line_of("/sys/class/dmi/id/bios_date")));
	json_object_set_new(policy, "hypervisor", hypervisor());
}
