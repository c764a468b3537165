// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot topology: nodes, CPUs, memory, memory tiers and which nodes pghotd
 * treats as lower tier, from sysfs (--sysfs-root for a fake tree). Reads
 * only; `--json` prints one object with a `nodes` list.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd/common/config.h"
#include "cmd/pghot/cmds.h"
#include "linux/topology.h"

static void usage(FILE *f)
{
	fputs("usage: pghot topology [--json] [--sysfs-root DIR] [--procfs-root DIR]\n"
	      "                      [-c FILE] [--lower-tier-nodes LIST]\n"
	      "Print NUMA nodes, their CPUs, memory, distances and tier.\n"
	      "  -c FILE                read lower_tier_nodes and sysfs_root from pghotd's config\n"
	      "  --lower-tier-nodes LIST  treat these nodes as lower tier (as the config key)\n",
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

static int print_json(const struct topology *t)
{
	cJSON *root = cJSON_CreateObject(), *nodes = cJSON_AddArrayToObject(root, "nodes");
	char *s;

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
			char k[16];

			snprintf(k, sizeof(k), "%d", t->nodes[j].nid);
			cJSON_AddNumberToObject(dist, k, n->distance[j]);
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
	if (!topology_nr_lower(t))
		printf("no lower-tier node: pghotd has nothing to promote from; if a CXL node is in the DRAM tier, set lower_tier_nodes\n");
}

int cmd_topology(int argc, char **argv)
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
	struct pghotd_config *cfg = calloc(1, sizeof(*cfg));
	const char *sysfs = NULL, *lower = NULL;
	struct topology t;
	char err[1024];
	bool json = false;
	int c, ret = 1;

	if (!cfg)
		return 1;
	cfg_init(cfg);
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 's':
			sysfs = optarg;
			break;
		case 'p':
			break;
		case 'l':
			lower = optarg;
			break;
		case 'c':
			if (cfg_load_file(cfg, optarg, err, sizeof(err))) {
				fprintf(stderr, "pghot topology: %s\n", err);
				goto out;
			}
			break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out;
		default:
			usage(stderr);
			ret = 2;
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pghot topology: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		ret = 2;
		goto out;
	}
	if (lower && nodelist_parse(lower, &cfg->lower_tier_nodes)) {
		fprintf(stderr, "pghot topology: --lower-tier-nodes: '%s' is not a node list\n",
			lower);
		ret = 2;
		goto out;
	}
	if (topology_load(sysfs ? sysfs : cfg->sysfs_root,
			  nodemask_weight(&cfg->lower_tier_nodes) ? &cfg->lower_tier_nodes : NULL,
			  &t, err, sizeof(err))) {
		fprintf(stderr, "pghot topology: %s\n", err);
		goto out;
	}
	for (int nid = 0; nid < PGHOT_MAX_NODES; nid++) {
		struct nodemask m = { 0 };

		if (!nodemask_test(&cfg->lower_tier_nodes, nid) ||
		    topology_node(&t, nid))
			continue;
		for (size_t i = 0; i < t.nr_nodes; i++)
			nodemask_set(&m, (unsigned int)t.nodes[i].nid);
		nodelist_format(&m, err, sizeof(err));
		fprintf(stderr, "pghot topology: lower_tier_nodes: node %d does not exist (nodes %s): name the CPU-less (CXL) nodes\n",
			nid, err);
		topology_release(&t);
		goto out;
	}
	if (nodemask_weight(&cfg->lower_tier_nodes)) {
		bool top = false;

		for (size_t i = 0; i < t.nr_nodes; i++)
			if (t.nodes[i].has_memory && !t.nodes[i].lower)
				top = true;
		if (!top) {
			nodelist_format(&cfg->lower_tier_nodes, err, sizeof(err));
			fprintf(stderr, "pghot topology: warning: lower_tier_nodes %s leaves no top-tier node with memory: pghotd would have nowhere to promote to and refuses to start\n",
				err);
		}
	}
	if (json)
		ret = print_json(&t);
	else {
		print_human(&t);
		ret = 0;
	}
	topology_release(&t);
out:
	free(cfg);
	return ret;
}
