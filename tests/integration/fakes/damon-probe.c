// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon-probe: drive the damon source (src_damon) on its own and print
 * what it reports, or (-M) drive the DAMON admin layer with a paddr
 * migrate_hot scheme. Used by tests/integration/damon_fake.sh against
 * static fake trees, and inside the QEMU guest against the guest's real
 * /sys.
 *
 *   damon-probe [-s SYSFS] [-p PROC] [-r RUN_DIR] [-n POLLS] [-S SAMPLE_US]
 *               [-A AGGR_US] [-H HOT_MIN] [-t TOP] [-L PID] [-c]
 *               [-K DELAY_MS] [-x CMD] [-T FROM] PID...
 *   damon-probe -M NODE:DEST [-s SYSFS] [-p PROC] [-r RUN_DIR] [-K DELAY_MS]
 *
 * Each poll is one round as pghotd drives it: poll() asks for a round and
 * returns, the source's fd becomes readable when the reader thread has the
 * regions, the next poll() hands them over. "poll N (T ms, poll() P ms)"
 * gives the time to the results and how long the asking poll() took.
 * -L adds PID to the targets after half the polls (an online change).
 * -c exits after the polls without close(), as a crash would.
 * -x runs CMD (sh -c) after set_targets and before the first poll, e.g.
 *    another tool taking the kdamond.
 * -K plays the kernel's part of a kdamond's state file on a static tree
 *    (fake trees only): "on"/"off" set state and pid (4242 + K), commands
 *    succeed, and update_schemes_tried_regions answers after DELAY_MS. It
 *    prints whether the kernel had answered when the asking poll()
 *    returned.
 * -T sets [damon] regions_from (auto, tracepoint, sysfs); "open:" says
 *    which one the source uses, and the end its tracepoint counters.
 * -M: the admin layer alone: one paddr kdamond over the memory of node
 *    NODE, one migrate_hot scheme to DEST (quota 10 ms and 200 MiB per
 *    second, weights 0/100/100, a goal on DEST's use, the young filter),
 *    on, update_schemes_stats, the stats, off and close.
 * SIGTERM or SIGINT end the polls early; close() runs as in pghotd.
 * Exit: 0 ok, 2 open failed, 3 set_targets failed, 4 poll failed, 5 admin
 * mode failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux/damon.h"
#include "linux/damon_admin.h"
#include "linux/source.h"
#include "linux/sysfs_io.h"

#define MAX_KEEP 4096

struct seen {
	struct pl_range r[MAX_KEEP];
	int n, hot, cold;
	unsigned long long hot_bytes, cold_bytes;
};

static volatile sig_atomic_t stop;
static struct seen seen;
static int fake_delay_ms = -1;	/* -K: the emulated kernel's answer time */
static atomic_int fake_answered;

static void on_signal(int sig)
{
	stop = sig;
}

static void plog(void *arg, int level, const char *msg)
{
	printf("log<%d>: %s\n", level, msg);
}

static int on_ranges(void *arg, const struct pl_range *rv, size_t n)
{
	struct seen *s = arg;

	for (size_t i = 0; i < n; i++) {
		const struct pl_range *r = &rv[i];

		if (s->n < MAX_KEEP)
			s->r[s->n++] = *r;
		if (r->cold) {
			s->cold++;
			s->cold_bytes += r->end - r->start;
		} else {
			s->hot++;
			s->hot_bytes += r->end - r->start;
		}
	}
	return 0;
}

static const struct src_sink sink = { .ranges = on_ranges, .sink_arg = &seen };

static int by_accesses(const void *a, const void *b)
{
	const struct pl_range *x = a, *y = b;

	if (x->nr_accesses != y->nr_accesses)
		return x->nr_accesses < y->nr_accesses ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- -K: the kernel's part of kdamonds/<K>/state on a static tree ---- */

static void put_file(const char *dir, const char *name, const char *v)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%s\n", v);
		fclose(f);
	}
}

static int fake_kernel(void *arg, const char *path, const char *v)
{
	size_t n = strlen(path);
	char kd[4096], pid[16];
	const char *k;

	if (n < 6 || strcmp(path + n - 6, "/state") || strstr(path, "/kdamonds/") == NULL)
		return 0; /* an ordinary file of the tree */
	snprintf(kd, sizeof(kd), "%.*s", (int)(n - 6), path);
	k = strrchr(kd, '/') + 1;
	if (!strcmp(v, "on")) {
		snprintf(pid, sizeof(pid), "%d", 4242 + atoi(k));
		put_file(kd, "state", "on");
		put_file(kd, "pid", pid);
	} else if (!strcmp(v, "off")) {
		put_file(kd, "state", "off");
		put_file(kd, "pid", "-1");
	} else if (!strcmp(v, "update_schemes_tried_regions")) {
		usleep((useconds_t)fake_delay_ms * 1000);
		atomic_fetch_add(&fake_answered, 1);
	}
	return 1; /* commit and the other commands: accepted */
}

/* ---- -M: the admin layer with a migrate_hot scheme ---- */

static void print_layout(const struct damon_layout *l)
{
	unsigned int node = (1u << DAMOS_GOAL_NODE_MEM_USED_BP) |
			    (1u << DAMOS_GOAL_NODE_MEM_FREE_BP);

	printf("admin: layout %s, migrate on paddr %s, on vaddr %s, target_nid %s, "
	       "quota goals %s (user_input %s, node_mem_*_bp %s), young filter %s, "
	       "allow %s, ops_filters %s, dests %s, intervals_goal %s\n",
	       l->name, damon_layout_migrates(l, DAMON_OPS_PADDR) ? "yes" : "no",
	       damon_layout_migrates(l, DAMON_OPS_VADDR) ? "yes" : "no",
	       l->target_nid ? "yes" : "no", l->quota_goals ? "yes" : "no",
	       l->goal_metrics & (1u << DAMOS_GOAL_USER_INPUT) ? "yes" : "no",
	       (l->goal_metrics & node) == node && l->goal_nid ? "yes" : "no",
	       l->filter_types & (1u << DAMOS_FILTER_YOUNG) ? "yes" : "no",
	       l->allow ? "yes" : "no", l->ops_filters ? "yes" : "no",
	       l->dests ? "yes" : "no", l->intervals_goal ? "yes" : "no");
}

/* One paddr target over node @node's memory, one migrate_hot scheme to
 * @dest, as mtier.c's promotion context. */
static int admin_setup(struct damon_admin *a, const char *sys, int node, int dest)
{
	const struct damon_layout *l = damon_admin_layout(a);
	const struct damon_ctx_attrs attrs = {
		.ops = DAMON_OPS_PADDR, .sample_us = 5000, .aggr_us = 100000,
		.min_nr_regions = 10, .max_nr_regions = 1000,
	};
	bool node_goal = l->goal_nid &&
			 (l->goal_metrics & (1u << DAMOS_GOAL_NODE_MEM_USED_BP));
	struct damos_goal g = {
		.metric = node_goal ? DAMOS_GOAL_NODE_MEM_USED_BP : DAMOS_GOAL_USER_INPUT,
		.target_value = 9970,
		.current_value = node_goal ? 0 : 5000,
		.nid = dest,
	};
	struct damos_filter f = { .type = DAMOS_FILTER_YOUNG, .matching = true,
				  .allow = true };
	struct damos_scheme sc = {
		.action = DAMOS_MIGRATE_HOT,
		.pattern = { .sz_min = 4096, .sz_max = UINT64_MAX, .nr_accesses_min = 1,
			     .nr_accesses_max = 20, .age_min = 0, .age_max = UINT32_MAX },
		.quota = { .ms = 10, .bytes = 200ULL << 20, .reset_interval_ms = 1000,
			   .weight_nr_accesses = 100, .weight_age = 100, .goals = &g,
			   .nr_goals = l->quota_goals ? 1 : 0 },
		.filters = &f,
		.nr_filters = l->filter_types & (1u << DAMOS_FILTER_YOUNG) ? 1 : 0,
		.target_nid = dest,
	};
	struct damon_range r[16];
	struct damon_target_spec t = { .pid = 0, .regions = r };
	int n = damon_node_ranges(sys, node, r, 16), err;

	if (n <= 0) {
		printf("admin: node %d: no memory ranges (%s)\n", node, strerror(n ? -n : ENOENT));
		return n ? n : -ENOENT;
	}
	t.nr_regions = n > 16 ? 16 : (size_t)n;
	printf("admin: node %d: %d range(s):", node, n);
	for (size_t i = 0; i < t.nr_regions; i++)
		printf(" %#" PRIx64 "-%#" PRIx64, r[i].start, r[i].end);
	printf("\n");
	err = damon_admin_set_context(a, 0, &attrs);
	if (!err)
		err = damon_admin_set_targets(a, 0, &t, 1);
	if (!err)
		err = damon_admin_set_schemes(a, 0, &sc, 1);
	if (err)
		printf("admin: error %d: %s\n", err, damon_admin_error(a));
	else
		printf("admin: scheme migrate_hot %d->%d, goal %s %" PRIu64 "%s\n", node, dest,
		       damos_goal_metric_name(g.metric), g.target_value,
		       sc.nr_filters ? ", allow young" : "");
	return err;
}

static int run_admin(const struct src_env *env, const char *spec)
{
	struct damon_admin_cfg ac = {
		.sysfs_root = env->sysfs_root,
		.procfs_root = env->procfs_root,
		.run_dir = env->run_dir,
		.instead = "leave DAMON to it",
		.log = plog,
	};
	struct damon_admin *a = NULL;
	struct damos_stats st;
	char errbuf[2048] = "";
	int node, dest, err;

	if (sscanf(spec, "%d:%d", &node, &dest) != 2) {
		fprintf(stderr, "-M wants NODE:DEST\n");
		return 1;
	}
	err = damon_admin_open(&ac, &a, errbuf, sizeof(errbuf));
	if (err) {
		printf("admin: open error %d: %s\n", err, errbuf);
		return 5;
	}
	print_layout(damon_admin_layout(a));
	err = admin_setup(a, env->sysfs_root, node, dest);
	if (!err)
		err = damon_admin_on(a, 0);
	if (!err) {
		if (fake_delay_ms < 0)
			usleep(1000 * 1000); /* a real kdamond: let it work */
		err = damon_admin_scheme_stats(a, 0, 1, &st);
	}
	if (!err)
		printf("admin: stats nr_tried %" PRIu64 " sz_tried %" PRIu64 " nr_applied %" PRIu64
		       " sz_applied %" PRIu64 " qt_exceeds %" PRIu64 "\n",
		       st.nr_tried, st.sz_tried, st.nr_applied, st.sz_applied, st.qt_exceeds);
	else
		printf("admin: error %d: %s\n", err, damon_admin_error(a));
	damon_admin_close(a);
	printf("admin: closed\n");
	return err ? 5 : 0;
}

/* ---- the source ---- */

static void print_counter(void *arg, const char *name, uint64_t v, bool gauge)
{
	printf("counter: %s %llu\n", name, (unsigned long long)v);
}

/* Wait for the reader's round: the fd, up to 10 s, or a signal. With the
 * tracepoint the fd wakes for a finished round and a filling ring, and
 * pghotd polls every interval anyway: wait one interval at most. */
static bool wait_round(void *p)
{
	struct pollfd pfd = { .fd = src_damon.ops->fd(p), .events = POLLIN };
	int ms = damon_src_tracepoint(p) ? (int)src_damon.ops->interval_ms(p) : 10000;

	return poll(&pfd, 1, ms) == 1 || damon_src_tracepoint(p);
}

static void print_seen(int n, int top)
{
	qsort(seen.r, (size_t)seen.n, sizeof(seen.r[0]), by_accesses);
	printf("%d reports: hot %d (%llu KiB), cold %d (%llu KiB)\n", n, seen.hot,
	       seen.hot_bytes >> 10, seen.cold, seen.cold_bytes >> 10);
	for (int j = 0; j < seen.n && j < top; j++) {
		const struct pl_range *r = &seen.r[j];

		printf("  %s pid=%d %#llx-%#llx %llu KiB nr_accesses=%u age=%u\n",
		       r->cold ? "cold" : "hot", (int)r->pid, (unsigned long long)r->start,
		       (unsigned long long)r->end,
		       (unsigned long long)(r->end - r->start) >> 10, r->nr_accesses, r->age);
	}
}

/*
 * One round as pghotd drives it: poll() asks and must return at once, the
 * fd says when the regions are there, the next poll() hands them over.
 * Return: the reports of the round, or a negative errno.
 */
static int one_round(void *p, int i, int top)
{
	uint64_t t0 = now_ms(), asked;
	int before = atomic_load(&fake_answered), during, n;

	memset(&seen, 0, sizeof(seen));
	n = src_damon.ops->poll(p, t0, &sink);
	asked = now_ms() - t0;
	during = atomic_load(&fake_answered) - before;
	if (!n && wait_round(p))
		n = src_damon.ops->poll(p, now_ms(), &sink);
	printf("poll %d (%llu ms, poll() %llu ms", i, (unsigned long long)(now_ms() - t0),
	       (unsigned long long)asked);
	if (fake_delay_ms >= 0)
		printf(", kernel had answered: %s", during ? "yes" : "no");
	if (n < 0) {
		printf("): error %d\n", n);
		return n;
	}
	printf("): ");
	print_seen(n, top);
	return n;
}

static int run_source(const struct src_env *env, const struct damon_cfg *cfg, pid_t *pids,
		      size_t npids, int polls, int top, pid_t late, const char *takeover,
		      bool crash)
{
	char errbuf[2048] = "";
	struct src_stats st;
	void *p = NULL;
	int err;

	err = src_damon.ops->open(env, cfg, &p, errbuf, sizeof(errbuf));
	if (err) {
		printf("open: error %d: %s\n", err, errbuf);
		return 2;
	}
	printf("open: ok, layout %s, %s, interval %llu ms, regions from %s\n",
	       damon_src_layout(p)->name,
	       damon_src_per_target_kdamonds(p) ? "one kdamond per target" : "target filters",
	       (unsigned long long)src_damon.ops->interval_ms(p),
	       damon_src_tracepoint(p) ? "the tracepoint" : "sysfs");
	err = src_damon.ops->set_targets(p, pids, npids);
	if (err) {
		printf("set_targets: error %d\n", err);
		src_damon.ops->close(p);
		return 3;
	}
	if (takeover)
		printf("takeover: '%s': exit %d\n", takeover, system(takeover));
	for (int i = 1; i <= polls && !stop; i++) {
		uint64_t t0 = now_ms();

		if (late && i == polls / 2 + 1 && npids < 64) {
			pids[npids++] = late;
			err = src_damon.ops->set_targets(p, pids, npids);
			printf("set_targets +%d: %d\n", (int)late, err);
		}
		err = one_round(p, i, top);
		if (err < 0) {
			src_damon.ops->close(p);
			printf("closed\n");
			return 4;
		}
		if (i < polls) {
			uint64_t spent = now_ms() - t0, iv = src_damon.ops->interval_ms(p);

			if (spent < iv)
				usleep((useconds_t)(iv - spent) * 1000);
		}
	}
	if (stop)
		printf("signal %d: stopping\n", (int)stop);
	src_damon.ops->stats(p, &st);
	printf("stats: reports %llu bytes %llu errors %llu dropped %llu\n",
	       (unsigned long long)st.reports, (unsigned long long)st.bytes_reported,
	       (unsigned long long)st.errors, (unsigned long long)st.dropped);
	if (damon_src_tracepoint(p))
		src_damon.ops->counters(p, print_counter, NULL);
	if (crash) {
		printf("crash: exiting without close()\n");
		_exit(0);
	}
	src_damon.ops->close(p);
	printf("closed\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct src_env env = {
		.sysfs_root = "/sys",
		.procfs_root = "/proc",
		.run_dir = "/run/pghot",
		.log = plog,
	};
	struct damon_cfg cfg = {
		.sample_us = 5000,
		.aggr_us = 100000,
		.min_nr_regions = 10,
		.max_nr_regions = 1000,
		.hot_min_accesses = 1,
	};
	int polls = 5, top = 8, opt;
	bool crash = false;
	pid_t pids[64], late = 0;
	size_t npids = 0;
	const char *takeover = NULL, *admin_mode = NULL;
	struct sigaction sa = { .sa_handler = on_signal };

	while ((opt = getopt(argc, argv, "s:p:r:n:S:A:H:t:L:cK:x:M:T:")) != -1) {
		switch (opt) {
		case 's': env.sysfs_root = optarg; break;
		case 'p': env.procfs_root = optarg; break;
		case 'r': env.run_dir = optarg; break;
		case 'n': polls = atoi(optarg); break;
		case 'S': cfg.sample_us = strtoull(optarg, NULL, 10); break;
		case 'A': cfg.aggr_us = strtoull(optarg, NULL, 10); break;
		case 'H': cfg.hot_min_accesses = (uint32_t)atoi(optarg); break;
		case 't': top = atoi(optarg); break;
		case 'c': crash = true; break;
		case 'L': late = (pid_t)atoi(optarg); break;
		case 'K': fake_delay_ms = atoi(optarg); break;
		case 'x': takeover = optarg; break;
		case 'M': admin_mode = optarg; break;
		case 'T':
			snprintf(cfg.regions_from, sizeof(cfg.regions_from), "%s", optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-s SYSFS] [-p PROC] [-r RUN_DIR] [-n POLLS] [-S SAMPLE_US] [-A AGGR_US] [-H HOT_MIN] [-t TOP] [-L PID] [-c] [-K DELAY_MS] [-x CMD] [-T FROM] PID...\n       %s -M NODE:DEST [-s SYSFS] [-p PROC] [-r RUN_DIR] [-K DELAY_MS]\n",
				argv[0], argv[0]);
			return 1;
		}
	}
	for (int i = optind; i < argc && npids < 64; i++)
		pids[npids++] = (pid_t)atoi(argv[i]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* no SA_RESTART: a signal ends the wait for a round */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (fake_delay_ms >= 0)
		sysfs_set_write_hook(fake_kernel, NULL);
	if (admin_mode)
		return run_admin(&env, admin_mode);
	return run_source(&env, &cfg, pids, npids, polls, top, late, takeover, crash);
}
