// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot topology: nodes, CPUs, memory, memory tiers and which nodes pghotd
 * treats as lower tier, from sysfs (--sysfs-root for a fake tree), and the
 * kernel's own tiering knobs (procfs and sysfs). Reads only; `--json`
 * prints one object with a `nodes` list.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cmd/common/cli.h"
#include "cmd/common/config.h"
#include "cmd/common/log.h"
#include "cmd/pghot/cmds.h"
#include "linux/kernel_movers.h"
#include "linux/topology.h"

#define HINT "see 'pghot help topology'"

static void usage(FILE *f)
{
	fputs("usage: pghot topology [--json] [-c FILE] [--lower-tier-nodes LIST]\n"
	      "                      [--sysfs-root DIR] [--procfs-root DIR]\n"
	      "\n"
	      "Print the NUMA nodes: CPUs, total and free memory, the kernel's memory tier,\n"
	      "distances, and the tier pghotd takes each node for (top: promoted to; lower:\n"
	      "promoted from), then whether the kernel moves pages between tiers itself.\n"
	      "Reads only.\n"
	      "\n"
	      "  -j, --json              one JSON object: {\"nodes\": [...], \"tier_source\", ...}\n"
	      "  -c, --config FILE       take lower_tier_nodes, sysfs_root and procfs_root from\n"
	      "                          pghotd's config file\n"
	      "  -l, --lower-tier-nodes LIST  treat these nodes as the lower tier, e.g. 1 or\n"
	      "                          1-3, as [engine] lower_tier_nodes and pghotd's option\n"
	      "      --sysfs-root DIR    read the nodes below DIR instead of /sys (a fake tree)\n"
	      "      --procfs-root DIR   read kernel.numa_balancing below DIR instead of /proc\n"
	      "  -h, --help              print this help\n"
	      "\n"
	      "Exit status: 0; 1 when the nodes cannot be read, a lower-tier node does not\n"
	      "exist, or pghotd would refuse these tiers: no lower-tier node, none left on\n"
	      "top, or the tiers inverted (the table is printed, the reason said on\n"
	      "standard error); 2 on a bad option.\n",
	      f);
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.1f %s", v, u[i]);
}

static void json_knob(cJSON *o, const char *name, int v, bool is_bool)
{
	if (v < 0)
		cJSON_AddNullToObject(o, name);
	else if (is_bool)
		cJSON_AddBoolToObject(o, name, v);
	else
		cJSON_AddNumberToObject(o, name, v);
}

static int print_json(const struct topology *t, const struct kmovers *k)
{
	cJSON *root = cJSON_CreateObject(), *nodes = cJSON_AddArrayToObject(root, "nodes");
	cJSON *kern = cJSON_AddObjectToObject(root, "kernel");
	char *s;

	json_knob(kern, "numa_balancing", k->numa_balancing, false);
	json_knob(kern, "demotion_enabled", k->demotion, true);

	cJSON_AddStringToObject(root, "tier_source",
				t->tier_source == TOPO_TIERS_KERNEL ? "kernel" :
				t->tier_source == TOPO_TIERS_CONFIG ? "config" : "cpuless");
	cJSON_AddNumberToObject(root, "nr_kernel_tiers", (double)t->nr_kernel_tiers);
	for (size_t i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		cJSON *o = cJSON_CreateObject(), *cpus, *dist;
		char list[1024];

		cJSON_AddNumberToObject(o, "nid", n->nid);
		cpus = cJSON_AddArrayToObject(o, "cpus");
		for (int c = 0; c < PGHOT_MAX_NODES; c++)
			if (nodemask_test(&n->cpus, c))
				cJSON_AddItemToArray(cpus, cJSON_CreateNumber(c));
		nodelist_format(&n->cpus, list, sizeof(list));
		cJSON_AddStringToObject(o, "cpulist", list);
		cJSON_AddBoolToObject(o, "has_cpu", n->has_cpu);
		cJSON_AddBoolToObject(o, "has_memory", n->has_memory);
		cJSON_AddNumberToObject(o, "mem_total_bytes", (double)n->mem_total_bytes);
		cJSON_AddNumberToObject(o, "mem_free_bytes", (double)n->mem_free_bytes);
		cJSON_AddStringToObject(o, "tier", !n->has_memory ? "none" :
					n->lower ? "lower" : "top");
		if (n->memory_tier >= 0)
			cJSON_AddNumberToObject(o, "memory_tier", n->memory_tier);
		else
			cJSON_AddNullToObject(o, "memory_tier");
		dist = cJSON_AddObjectToObject(o, "distances");
		for (size_t j = 0; j < t->nr_nodes && n->distance; j++) {
			char key[16];

			snprintf(key, sizeof(key), "%d", t->nodes[j].nid);
			cJSON_AddNumberToObject(dist, key, n->distance[j]);
		}
		cJSON_AddItemToArray(nodes, o);
	}
	s = cJSON_Print(root);
	if (s)
		puts(s);
	free(s);
	cJSON_Delete(root);
	return s ? 0 : 1;
}

static void print_human(const struct topology *t)
{
	printf("%-5s %-10s %-11s %-11s %-6s %-12s %s\n", "node", "cpus",
	       "mem_total", "mem_free", "tier", "memory_tier", "distances");
	for (size_t i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		char cpus[64], tot[32], fr[32], mt[16], dist[256] = "";
		size_t off = 0;

		nodelist_format(&n->cpus, cpus, sizeof(cpus));
		human_bytes(n->mem_total_bytes, tot, sizeof(tot));
		human_bytes(n->mem_free_bytes, fr, sizeof(fr));
		if (n->memory_tier >= 0)
			snprintf(mt, sizeof(mt), "%d", n->memory_tier);
		else
			snprintf(mt, sizeof(mt), "-");
		for (size_t j = 0; n->distance && j < t->nr_nodes; j++) {
			int w = snprintf(dist + off, sizeof(dist) - off, "%s%d",
					 j ? " " : "", n->distance[j]);
			if (w < 0 || (size_t)w >= sizeof(dist) - off)
				break;
			off += (size_t)w;
		}
		printf("%-5d %-10s %-11s %-11s %-6s %-12s %s\n", n->nid,
		       cpus[0] ? cpus : "-", tot, fr,
		       !n->has_memory ? "none" : n->lower ? "lower" : "top", mt,
		       dist[0] ? dist : "-");
	}
	printf("\nlower tier from: %s\n", topology_tier_source_name(t->tier_source));
}

struct topo_opts {
	const char *sysfs, *procfs, *lower;
	bool json;
	struct pghotd_config *cfg;	/* -c FILE, or the defaults */
};

/* Return: 0 to go on, 1 to exit 0 (help), 2 (a usage error, said), 3 (the
 * -c file cannot be read or is not valid, said: exit 1, as pghotd's and
 * pghot stat's). */
static int parse_opts(int argc, char **argv, struct topo_opts *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "sysfs-root", required_argument, NULL, 's' },
		{ "procfs-root", required_argument, NULL, 'p' },
		{ "lower-tier-nodes", required_argument, NULL, 'l' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char err[1024];
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "jc:l:h", opts, HINT)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 's':
		case 'p':
			/* as pghotd's: a relative root would depend on the
			 * working directory */
			if (cli_absolute_path(c == 's' ? "--sysfs-root" : "--procfs-root",
					      optarg, false, err, sizeof(err)))
				return log_ret(2, LOG_ERR, "%s (%s)", err, HINT);
			*(c == 's' ? &o->sysfs : &o->procfs) = optarg;
			break;
		case 'l':
			o->lower = optarg;
			break;
		case 'c':
			if (cfg_load_file(o->cfg, optarg, err, sizeof(err)))
				return log_ret(3, LOG_ERR, "%s", err);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return log_ret(2, LOG_ERR, "unexpected argument '%s' (%s)", argv[optind], HINT);
	if (o->lower && nodelist_parse(o->lower, &o->cfg->lower_tier_nodes))
		return log_ret(2, LOG_ERR,
			       "--lower-tier-nodes: '%s' is not a node list: give nodes as 1, 1,2 or 1-3 (0 to %d)",
			       o->lower, PGHOT_MAX_NODES - 1);
	return 0;
}

/* lower_tier_nodes against the machine: a missing node is an error (1,
 * nothing printed); tiers pghotd refuses (a lower tier of every node with
 * memory, or one faster than the top) an error after the table is printed
 * (*@refused), so the table shows why. */
static int check_lower(const struct topology *t, const struct nodemask *lower,
		       bool *refused)
{
	struct nodemask all = { 0 };
	char list[1024];
	bool top = false;

	for (size_t i = 0; i < t->nr_nodes; i++) {
		nodemask_set(&all, (unsigned int)t->nodes[i].nid);
		top |= t->nodes[i].has_memory && !t->nodes[i].lower;
	}
	nodelist_format(&all, list, sizeof(list));
	for (int nid = 0; nid < PGHOT_MAX_NODES; nid++)
		if (nodemask_test(lower, nid) && !topology_node(t, nid))
			return log_ret(1, LOG_ERR,
				       "lower_tier_nodes: node %d does not exist (nodes %s): name the CPU-less (CXL) nodes",
				       nid, list);
	if (!topology_nr_lower(t)) {
		log_err("no lower-tier node: pghotd has nothing to promote from and refuses to start; if a CXL node is in the DRAM tier, set [engine] lower_tier_nodes (pghot.conf) or pass --lower-tier-nodes");
		*refused = true;
	} else if (nodemask_weight(lower) && !top) {
		nodelist_format(lower, list, sizeof(list));
		log_err("lower_tier_nodes %s leaves no top-tier node with memory: pghotd would have nowhere to promote to and refuses to start",
			list);
		*refused = true;
	} else if (topology_inverted(t, lower, list, sizeof(list))) {
		/* the same check and words as pghotd's, which refuses it */
		log_err("%s; pghotd refuses to start with it", list);
		*refused = true;
	}
	return 0;
}

/* Whether the kernel moves pages between tiers itself (read only). */
static void print_kernel(const struct kmovers *k)
{
	char nb[16];

	snprintf(nb, sizeof(nb), k->numa_balancing < 0 ? "absent" : "%d", k->numa_balancing);
	printf("kernel tiering: kernel.numa_balancing %s, demotion_enabled %s\n", nb,
	       k->demotion < 0 ? "absent" : k->demotion ? "true" : "false");
	if (k->numa_balancing > 0)
		printf("the kernel's NUMA balancing moves lower-tier pages too: set kernel.numa_balancing to 0 while pghotd promotes\n");
}

int cmd_topology(int argc, char **argv)
{
	struct topo_opts o = { .cfg = calloc(1, sizeof(struct pghotd_config)) };
	const struct nodemask *lower;
	struct kmovers k;
	struct topology t;
	bool refused = false;
	char err[1024];
	struct stat st;
	int ret;

	if (!o.cfg)
		return 1;
	cfg_init(o.cfg);
	ret = parse_opts(argc, argv, &o);
	if (ret) {
		free(o.cfg);
		return ret == 1 ? 0 : ret == 3 ? 1 : 2;
	}
	lower = nodemask_weight(&o.cfg->lower_tier_nodes) ? &o.cfg->lower_tier_nodes : NULL;
	if (!o.sysfs)
		o.sysfs = o.cfg->sysfs_root;
	if (!o.procfs)
		o.procfs = o.cfg->procfs_root;
	/* a root that is not there would read as a kernel without NUMA
	 * balancing */
	if (stat(o.procfs, &st) || !S_ISDIR(st.st_mode)) {
		log_err("procfs root '%s' (%s) is not a directory: give the procfs mount, as /proc (%s)",
			o.procfs, o.procfs == o.cfg->procfs_root ? "[system] procfs_root" : "--procfs-root",
			HINT);
		free(o.cfg);
		return 2;
	}
	if (topology_load(o.sysfs, lower, &t, err, sizeof(err))) {
		free(o.cfg);
		return log_ret(1, LOG_ERR, "%s", err);
	}
	ret = check_lower(&t, &o.cfg->lower_tier_nodes, &refused);
	if (!ret && kmovers_read(o.procfs, o.sysfs, &k)) {
		log_warn("cannot read kernel.numa_balancing or demotion_enabled below %s, %s",
			 o.procfs, o.sysfs);
		k.numa_balancing = k.demotion = -1;
	}
	if (!ret && o.json) {
		ret = print_json(&t, &k);
	} else if (!ret) {
		print_human(&t);
		print_kernel(&k);
	}
	topology_release(&t);
	free(o.cfg);
	return ret ? ret : refused;
}
