/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghotd's configuration: ONE declarative table (cfg_table(): section, name,
 * type, min, max, default, unit, help) drives parsing of the INI file,
 * validation, `pghot ctl get/set` over the control socket, and the man page
 * pghot.conf(5) (`pghotd --dump-config-man`). Engine tunables take their
 * ranges and defaults from pghot_tunable_descs(), per record mode.
 */
#ifndef PGHOT_CMD_COMMON_CONFIG_H
#define PGHOT_CMD_COMMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <pghot/pghot.h>

#include "linux/damos_plan.h"
#include "linux/fsroot.h"
#include "linux/source.h"

#define CFG_MAX_PIDS 256
#define CFG_MAX_COMMS 16
#define CFG_PATH_LEN 1024
#define CFG_MAX_KEYS 160	/* the daemon's and every source's keys */

_Static_assert(CFG_PATH_LEN == SRC_PATH_LEN, "a source's paths are config strings");

/* [system] execution: who moves pages. */
enum pghotd_execution {
	PGHOTD_EXEC_ENGINE = 0,	/* pghotd: sources, engine, workers, move_pages */
	PGHOTD_EXEC_DAMOS,	/* the kernel: pghotd's kdamonds run DAMOS
				 * migrate_hot/migrate_cold (damos_plan.h) */
	PGHOTD_NR_EXEC,
};

struct pghotd_config {
	/* [engine] */
	enum pghot_mode mode;
	uint32_t sources;		/* bit per index of src_registry[] */
	struct pghot_tunables tun;	/* enabled_sources derived from sources */
	struct nodemask lower_tier_nodes; /* empty: from the kernel/CPUs */
	/* [targets] */
	pid_t pids[CFG_MAX_PIDS];
	size_t nr_pids;
	char comm[CFG_MAX_COMMS][16];
	size_t nr_comms;
	char cgroup[CFG_PATH_LEN];
	uint64_t min_rss_mb;		/* 0: off */
	uint64_t rescan_ms;
	/* one section per source, src_registry[] order: each source's own
	 * config struct (struct src_desc.cfg_size bytes) */
	_Alignas(8) unsigned char src[SRC_MAX][SRC_CFG_MAX];
	/* [demotion] */
	bool demote_enabled;
	uint64_t demote_low_wmark_pct, demote_high_wmark_pct;
	uint64_t demote_rate_limit_MBps;
	/* [damos] */
	struct damos_cfg damos;
	/* [stats] */
	char socket[CFG_PATH_LEN];
	char prometheus_file[CFG_PATH_LEN];
	uint64_t stats_interval_ms;
	/* [system] */
	char sysfs_root[CFG_PATH_LEN];
	char procfs_root[CFG_PATH_LEN];
	char run_dir[CFG_PATH_LEN];
	unsigned int kernel_tiering;	/* enum cfg_kernel_tiering */
	unsigned int execution;		/* enum pghotd_execution */

	/* bookkeeping: which engine tunables were given, and where */
	uint32_t tun_set;		/* bit per pghot_tunable_descs() index */
	char tun_text[32][24];		/* each tunable as written, for messages */
	int line[CFG_MAX_KEYS];		/* per cfg_table() index: line set, or 0 */
	const char *file;		/* for messages; borrowed */
	/* the key `pghot ctl set` changes, blamed for a conflict with
	 * another key; NULL: blame the key given last in the file */
	const struct cfg_desc *changed;
};

enum cfg_type {
	CFG_UINT = 0,	/* uint64_t within min..max */
	CFG_BOOL,	/* true/false, yes/no, on/off, 1/0, any case */
	CFG_STRING,	/* char[CFG_PATH_LEN] */
	CFG_MODE,	/* default|precise */
	CFG_SOURCES,	/* source names, commas and/or blanks between */
	CFG_NODELIST,	/* "1,2" or "1-3" */
	CFG_PIDLIST,	/* pids, commas and/or blanks between */
	CFG_COMMLIST,	/* command names, commas and/or blanks between */
	CFG_TUNABLE,	/* engine tunable: ranges from pghot_tunable_descs() */
	CFG_CHOICE,	/* one of a key's words (config.c choices_of()),
			 * stored as its index (unsigned int) */
	CFG_TYPE_MAX,
};

/* [system] kernel_tiering: when the kernel promotes or demotes too. */
enum cfg_kernel_tiering {
	CFG_KERNEL_TIERING_WARN = 0,	/* a warning naming the knob */
	CFG_KERNEL_TIERING_REFUSE,	/* no start; a stop if it appears */
};

/* Entry flags. */
#define CFG_F_RUNTIME 0x1	/* `pghot ctl set` and SIGHUP apply it live */
#define CFG_F_PATH 0x2		/* CFG_STRING: empty or an absolute path */
#define CFG_F_REQUIRED 0x4	/* CFG_STRING: set when its source is on */
#define CFG_F_NONEMPTY 0x8	/* CFG_F_PATH that cannot be empty (a root
				 * or a directory every run needs) */
#define CFG_F_POW2 0x10		/* CFG_UINT: a power of two (ring sizes) */

struct cfg_desc {
	const char *section;
	const char *name;
	enum cfg_type type;
	uint64_t min, max;	/* CFG_UINT */
	const char *def;	/* default, as text (NULL: engine default) */
	const char *unit;
	const char *help;
	size_t offset;		/* in struct pghotd_config */
	unsigned int flags;
	int src;		/* src_registry[] index of a source's key,
				 * -1 for the daemon's own */
	const char *required;	/* CFG_F_REQUIRED: what to set it to */
	const char *const *words; /* CFG_STRING: the values allowed,
				   * NULL-ended; NULL: any text */
};

/* The table: the daemon's keys with every registered source's keys in a
 * section of its own, after [targets]. */
const struct cfg_desc *cfg_table(size_t *ret_n);

/* The config struct of source @idx (src_registry[] index) in @c. */
static inline const void *cfg_src(const struct pghotd_config *c, size_t idx)
{
	return c->src[idx];
}
/* Find by "name" or "section.name". */
const struct cfg_desc *cfg_find(const char *name);

/* Defaults of every key (mode default). */
void cfg_init(struct pghotd_config *c);

/**
 * cfg_set() - parse and store one value.
 * @section: the INI section, or NULL to find the key by name alone.
 * @line:    line number for messages (0: not from a file).
 * @errbuf:  "FILE:LINE: key 'x': value 'y' out of range 1..3 (x)" style.
 * Engine tunables are range-checked later by cfg_finalize() (their range
 * depends on mode). Return: 0, -EINVAL, -ENOENT (unknown key).
 */
int cfg_set(struct pghotd_config *c, const char *section, const char *name,
	    const char *value, int line, char *errbuf, size_t errlen);

/* Cross-key checks and engine defaults for tunables not given.
 * Return: 0 or -EINVAL with a message naming the file and line. */
int cfg_finalize(struct pghotd_config *c, char *errbuf, size_t errlen);

/* Parse INI text / a file over the current contents of @c (call cfg_init()
 * first), then cfg_finalize(). @file names the file in messages. */
int cfg_parse_string(struct pghotd_config *c, const char *text, size_t len,
		     const char *file, char *errbuf, size_t errlen);
int cfg_load_file(struct pghotd_config *c, const char *path, char *errbuf,
		  size_t errlen);

/* Current value of @d as config text. */
void cfg_format(const struct pghotd_config *c, const struct cfg_desc *d,
		char *buf, size_t len);
/* Allowed values of @d in @mode, for help and messages ("1..3"). */
void cfg_describe_range(const struct cfg_desc *d, enum pghot_mode mode,
			char *buf, size_t len);

/* Write pghot.conf(5) in roff to @f. */
void cfg_write_man(FILE *f);

#endif
