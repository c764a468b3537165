/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmu: what memory-access sampling the CPU offers, found in
 * <sysfs>/bus/event_source/devices/NAME (files type and cpus, folders format,
 * caps and events),
 * and the perf_event_attr encoding of the events, from the format files as
 * perf does it (tools/perf/util/pmu.c: a format file "config1:0-15" says
 * which bits of which attr word a term's value goes to, low bits first).
 *
 * What is looked for (research: kernel-interfaces.md section 1):
 * - AMD IBS Op, PMU "ibs_op" (arch/x86/events/amd/ibs.c): one event with
 *   cnt_ctl=1 (count dispatched ops), l3missonly=1 where the format exists
 *   (Zen 4+), ldlat=N where caps/ldlat is 1 (Zen 5), swfilt=1 where it
 *   exists (then kernel samples are filtered out). Period: a multiple of 16,
 *   at most 0xFFFF0 (IBS_OP_MAX_CNT << 4).
 * - Intel PEBS load latency, PMU "cpu" (or "cpu_core" on hybrid parts) with
 *   events/mem-loads (arch/x86/events/intel/core.c): mem-loads with
 *   ldlat=N (config1), mem-stores, and, where events/mem-loads-aux exists
 *   (Sapphire Rapids, Alder Lake P-cores: PMU_FL_MEM_LOADS_AUX), a
 *   mem-loads-aux group leader without which mem-loads with DATA_SRC fails
 *   with -ENODATA. precise_ip from caps/max_precise (at most 3).
 * - Arm SPE, PMU "arm_spe_N" (drivers/perf/arm_spe_pmu.c): ts_enable,
 *   pa_enable, load_filter, store_filter, jitter, min_latency. Its samples
 *   are packets in the AUX area, not PERF_RECORD_SAMPLEs.
 * - The software page-fault event (PERF_TYPE_SOFTWARE, never chosen by
 *   "auto"): it carries ADDR and PHYS_ADDR and proves the whole perf path
 *   on machines without a sampling PMU.
 *
 * libpfm4 is not used: it encodes core-PMU events from its own tables,
 * while every PMU here is dynamic (ibs_op, arm_spe_N) or read through the
 * kernel's own aliases (cpu/events/mem-loads), which the format files
 * encode exactly for the running kernel.
 */
#ifndef PGHOT_LINUX_PMU_H
#define PGHOT_LINUX_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pmu_kind {
	PMU_NONE = 0,
	PMU_IBS,		/* AMD IBS Op */
	PMU_PEBS,		/* Intel PEBS load latency + precise stores */
	PMU_SPE,		/* Arm SPE */
	PMU_SW_FAULTS,		/* software page faults (proof, tests) */
	PMU_KIND_MAX,
};

/* "ibs", "pebs", "spe", "faults" ("none" for PMU_NONE). */
const char *pmu_kind_name(enum pmu_kind k);

/* One format term: which bits of which attr word its value fills. */
struct pmu_format {
	char name[32];
	uint8_t word;		/* 0 config, 1 config1, 2 config2, 3 config3 */
	uint64_t mask;		/* bits of that word, value's low bit first */
};

#define PMU_FORMATS_MAX 48
#define PMU_NAME_LEN 64

/* A PMU as sysfs describes it. */
struct pmu {
	char name[PMU_NAME_LEN];
	uint32_t type;			/* attr.type */
	struct pmu_format formats[PMU_FORMATS_MAX];
	size_t nr_formats;
	char dir[4096];			/* its sysfs folder, for caps/events */
};

/**
 * pmu_parse_format() - parse a format file's text ("config1:0-15",
 * "config:0-7,32-35", "config2:0").
 * Return: 0 with @ret's word and mask set; -EINVAL if it is not one.
 */
int pmu_parse_format(const char *text, struct pmu_format *ret);

/**
 * pmu_read() - read PMU @name below @sysfs_root: its type and formats.
 * Return: 0; -ENOENT (no such PMU or no type file); -EINVAL (a type or a
 * format file that does not parse); -E2BIG (more than PMU_FORMATS_MAX).
 */
int pmu_read(const char *sysfs_root, const char *name, struct pmu *ret);

/**
 * pmu_cap() - read caps/@cap of @p as an unsigned number (files hold "1" or
 * decimal numbers). Return: 0 with @ret set, -ENOENT, -EINVAL.
 */
int pmu_cap(const struct pmu *p, const char *cap, uint64_t *ret);

/**
 * pmu_event_alias() - the text of events/@event of @p ("event=0xcd,
 * umask=0x1,ldlat=3") into @buf. Return: its length, or -ENOENT.
 */
int pmu_event_alias(const struct pmu *p, const char *event, char *buf,
		    size_t len);

/** pmu_find_format() - the format term @name (@len bytes) of @p, or NULL. */
const struct pmu_format *pmu_find_format(const struct pmu *p, const char *name,
					 size_t len);

/* The four config words of a perf_event_attr. */
struct pmu_config {
	uint64_t word[4];	/* config, config1, config2, config3 */
};

/**
 * pmu_encode() - add comma-separated terms ("event=0xcd,umask=0x1",
 * "ldlat=30", a bare "l3missonly" meaning 1) to @cfg. A term given twice
 * keeps the later value (its bits are cleared first), as perf does.
 * @errbuf: on failure, which term and why.
 * Return: 0; -ENOENT (a term that is no format of @p); -ERANGE (a value
 * that does not fit its field); -EINVAL (not a term).
 */
int pmu_encode(const struct pmu *p, const char *terms, struct pmu_config *cfg,
	       char *errbuf, size_t errlen);

/* ---- the plan: which events to open on each CPU ---------------------- */

#define PMU_EVENTS_MAX 3

struct pmu_event {
	char label[PMU_NAME_LEN]; /* "ibs_op", "mem-loads", ... */
	uint32_t type;
	struct pmu_config cfg;
	bool sampling;		/* false: a counting group leader only
				 * (mem-loads-aux) */
	bool in_group;		/* member of the group led by ev[0] */
	uint8_t precise_ip;
	bool exclude_kernel;
};

struct pmu_plan {
	enum pmu_kind kind;
	char pmu_name[PMU_NAME_LEN];
	struct pmu_event ev[PMU_EVENTS_MAX];
	size_t nr_ev;
	uint64_t period_align;	/* the period must be a multiple (IBS: 16) */
	uint64_t period_max;	/* largest period the PMU takes */
	bool aux_area;		/* samples come in the AUX area (SPE) */
	char cpus[256];		/* the PMU's CPUs ("cpus" file), "" = all */
	char features[256];	/* one line for the log: "l3missonly ldlat=256" */
};

/* What the config asks for. */
struct pmu_want {
	const char *pmu;	/* "auto", "ibs", "pebs", "spe", "faults", or
				 * a PMU's sysfs name */
	unsigned int ldlat;	/* load latency threshold, cycles; 0: the
				 * PMU's default (Intel 30, AMD none) */
	bool l3miss_only;	/* IBS: only ops that missed L3 */
	bool stores;		/* Intel: also sample mem-stores */
};

/**
 * pmu_plan() - find the sampling PMU @want names (or the best one: IBS,
 * then PEBS, then SPE) and the events to open.
 * @errbuf: on failure, what is missing and what works instead (the PMUs
 *          present; the damon source; replaying `perf mem record` output).
 * Return: 0 with @ret filled; -ENODEV (no usable PMU, or not the one named);
 * -EINVAL (@want->pmu unknown, ldlat out of the PMU's range); other errors
 * of pmu_read() and pmu_encode().
 */
int pmu_plan(const char *sysfs_root, const struct pmu_want *want,
	     struct pmu_plan *ret, char *errbuf, size_t errlen);

#endif
