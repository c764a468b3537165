// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot stat --targets: each target of pghotd with its memory on each node,
 * summed from <procfs>/PID/numa_maps as numastat -p sums it (N<node>= pages
 * times kernelpagesize_kB), the share on lower-tier nodes, and the pages
 * pghotd promoted, demoted and recorded. The procfs and sysfs roots and
 * lower_tier_nodes are pghotd's (GET), so a fake tree is read as pghotd
 * reads it; the tiers come from the topology as pghotd decides them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd/common/config.h"
#include "cmd/common/log.h"
#include "cmd/common/proto.h"
#include "cmd/pghot/stat.h"
#include "linux/numa_maps.h"
#include "linux/topology.h"

#define NODES PROC_NUMA_MAP_NODES

/* pghotd's view of the machine: its roots and which nodes are lower. */
struct machine_view {
	char procfs[CFG_PATH_LEN], sysfs[CFG_PATH_LEN], lower_list[CFG_PATH_LEN];
	struct nodemask lower;		/* lower-tier nodes */
	struct nodemask shown;		/* nodes with memory, columns */
	bool tiers;			/* @lower is known */
};

/* One target's pages, KiB per node. */
struct target_mem {
	uint64_t kib[NODES];
	uint64_t total_kib, lower_kib;
	int err;			/* reading numa_maps, negative errno */
};

static void get_value(void *arg, const char *line)
{
	const char *sp = strchr(line, ' ');

	snprintf(arg, CFG_PATH_LEN, "%s", sp ? sp + 1 : "");
}

static int get_key(int fd, const char *key, char *val)
{
	char req[128], err[1024];

	val[0] = '\0';
	snprintf(req, sizeof(req), "GET %s", key);
	if (proto_request(fd, req, get_value, val, err, sizeof(err))) {
		log_err("%s", err);
		return -EPROTO;
	}
	return 0;
}

static int machine_view_get(int fd, const char *procfs, struct machine_view *m)
{
	struct nodemask over = { 0 };
	struct topology t;
	char err[1024];

	memset(m, 0, sizeof(*m));
	if (get_key(fd, "system.procfs_root", m->procfs) ||
	    get_key(fd, "system.sysfs_root", m->sysfs) ||
	    get_key(fd, "engine.lower_tier_nodes", m->lower_list))
		return -EPROTO;
	if (procfs)
		snprintf(m->procfs, sizeof(m->procfs), "%s", procfs);
	if (m->lower_list[0] && nodelist_parse(m->lower_list, &over))
		memset(&over, 0, sizeof(over));
	if (topology_load(m->sysfs, nodemask_weight(&over) ? &over : NULL, &t, err,
			  sizeof(err))) {
		log_warn("%s: the tiers are unknown", err);
		return 0;
	}
	for (size_t i = 0; i < t.nr_nodes; i++) {
		if (t.nodes[i].lower)
			nodemask_set(&m->lower, (unsigned int)t.nodes[i].nid);
		if (t.nodes[i].has_memory && t.nodes[i].nid < NODES)
			nodemask_set(&m->shown, (unsigned int)t.nodes[i].nid);
	}
	m->tiers = true;
	topology_release(&t);
	return 0;
}

static int add_mapping(void *arg, const struct proc_numa_map *map)
{
	struct target_mem *tm = arg;
	uint64_t kb = map->page_kb ? map->page_kb : (uint64_t)sysconf(_SC_PAGESIZE) / 1024;

	for (size_t n = 0; n < NODES; n++)
		tm->kib[n] += map->node_pages[n] * kb;
	tm->total_kib += map->pages * kb;
	return 0;
}

static void target_mem_read(const struct machine_view *m, int pid,
			    struct target_mem *tm)
{
	memset(tm, 0, sizeof(*tm));
	tm->err = proc_read_numa_maps(m->procfs, pid, add_mapping, tm, NULL);
	for (size_t n = 0; n < NODES; n++)
		if (nodemask_test(&m->lower, (unsigned int)n))
			tm->lower_kib += tm->kib[n];
}

static double mib(uint64_t kib)
{
	return (double)kib / 1024;
}

static void print_text(const struct machine_view *m, const struct stat_snap *s,
		       const struct target_mem *tm, struct nodemask *cols, FILE *f)
{
	char lower[256];

	nodelist_format(&m->lower, lower, sizeof(lower));
	fprintf(f, "pghotd's targets: MiB on each node (%s/PID/numa_maps, as numastat -p),\n"
		   "the share on the lower tier (nodes %s); pages promoted, demoted, recorded by pghotd\n",
		m->procfs, m->tiers ? (lower[0] ? lower : "none") : "unknown");
	fprintf(f, "%-8s %-16s", "pid", "comm");
	for (unsigned int n = 0; n < NODES; n++)
		if (nodemask_test(cols, n))
			fprintf(f, " %7s%-2u", "node", n);
	fprintf(f, " %10s %6s %10s %10s %10s\n", "total", "lower", "promoted", "demoted",
		"recorded");
	for (size_t i = 0; i < s->nt; i++) {
		const struct stat_target *t = &s->t[i];

		fprintf(f, "%-8d %-16s", t->pid, t->comm);
		for (unsigned int n = 0; n < NODES; n++)
			if (nodemask_test(cols, n)) {
				if (tm[i].err)
					fprintf(f, " %9s", "-");
				else
					fprintf(f, " %9.1f", mib(tm[i].kib[n]));
			}
		if (tm[i].err)
			fprintf(f, " %10s %6s", "-", "-");
		else
			fprintf(f, " %10.1f %5.1f%%", mib(tm[i].total_kib),
				tm[i].total_kib ? 100.0 * (double)tm[i].lower_kib /
							  (double)tm[i].total_kib : 0.0);
		fprintf(f, " %10llu %10llu %10llu\n", (unsigned long long)t->promoted,
			(unsigned long long)t->demoted, (unsigned long long)t->recorded);
	}
	if (!s->nt)
		fprintf(f, "(no targets)\n");
}

static void print_json(const struct machine_view *m, const struct stat_snap *s,
		       const struct target_mem *tm, FILE *f)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "targets");

	for (size_t i = 0; i < s->nt; i++) {
		cJSON *o = stat_target_json(&s->t[i]), *nodes;

		if (tm[i].err) {
			cJSON_AddStringToObject(o, "numa_maps_error", strerror(-tm[i].err));
			cJSON_AddItemToArray(arr, o);
			continue;
		}
		nodes = cJSON_AddObjectToObject(o, "node_mib");
		for (unsigned int n = 0; n < NODES; n++) {
			char k[8];

			if (!tm[i].kib[n] && !nodemask_test(&m->shown, n))
				continue;
			snprintf(k, sizeof(k), "%u", n);
			cJSON_AddNumberToObject(nodes, k, mib(tm[i].kib[n]));
		}
		cJSON_AddNumberToObject(o, "total_mib", mib(tm[i].total_kib));
		if (m->tiers)
			cJSON_AddNumberToObject(o, "lower_share", tm[i].total_kib ?
						(double)tm[i].lower_kib / (double)tm[i].total_kib : 0);
		cJSON_AddItemToArray(arr, o);
	}
	stat_json_print(root, f);
}

int stat_targets_print(int fd, const struct stat_snap *s, const char *procfs,
		       bool json, FILE *f)
{
	struct target_mem *tm = calloc(s->nt ? s->nt : 1, sizeof(*tm));
	struct machine_view m;
	struct nodemask cols;

	if (!tm || machine_view_get(fd, procfs, &m)) {
		free(tm);
		return 1;
	}
	cols = m.shown;
	for (size_t i = 0; i < s->nt; i++) {
		target_mem_read(&m, s->t[i].pid, &tm[i]);
		if (tm[i].err)
			log_warn("pid %d: cannot read %s/%d/numa_maps: %s%s", s->t[i].pid,
				 m.procfs, s->t[i].pid, strerror(-tm[i].err),
				 tm[i].err == -EACCES ? " (run as root, as pghotd)" : "");
		for (unsigned int n = 0; n < NODES; n++)	/* a node with pages */
			if (tm[i].kib[n])
				nodemask_set(&cols, n);
	}
	if (json)
		print_json(&m, s, tm, f);
	else
		print_text(&m, s, tm, &cols, f);
	free(tm);
	return 0;
}
