/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal types of the engine, shared by the files of src/lib.
 *
 * Storage in one paragraph: records live in leaves of LEAF_PAGES pages, one
 * leaf per (space, page >> LEAF_SHIFT, page_nid). A leaf therefore belongs
 * to exactly one lower-tier node: pages of one 2 MiB range that sit on two
 * lower nodes get two leaves, and a node's ready queue is a FIFO of its own
 * leaves. Leaves are fixed-size objects in chunks of LEAVES_PER_CHUNK,
 * referenced by a 32-bit index (no malloc header per leaf); an open-address
 * hash table of those indices finds a leaf from its key.
 *
 * Invariants:
 * - a live leaf is in the hash table and on its space's list; it is on its
 *   node's ready FIFO iff LEAF_QUEUED is set, and it is set whenever
 *   nr_ready > 0 (a leaf may stay queued with nr_ready == 0 only inside
 *   pghot_promote());
 * - every record of a leaf is an offset from leaf->base_ms in units of
 *   leaf->bucket_ms, with freq == 0 meaning "no access in reach".
 */
#ifndef PGHOT_LIB_INTERNAL_H
#define PGHOT_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pghot/pghot.h>

/* 512 pages of 4 KiB = 2 MiB: one PMD, so a THP is one leaf. */
#define LEAF_SHIFT 9
#define LEAF_PAGES (1u << LEAF_SHIFT)
#define LEAF_MASK (LEAF_PAGES - 1)

/* Pages are < 2^52 (API), so page >> 9 fits 43 bits; space ids fit 20. */
#define PAGE_BITS 52
#define SPACE_BITS 20
#define MAX_SPACES (1u << SPACE_BITS)
#define LEAF_NO_BITS (PAGE_BITS - LEAF_SHIFT)

/* 64 leaves per chunk: 34 KiB (default) / 133 KiB (precise); at most one
 * partly used chunk is the slab's slack. */
#define CHUNK_SHIFT 6
#define LEAVES_PER_CHUNK (1u << CHUNK_SHIFT)

/* engine->kind[nid] */
#define NODE_ABSENT 0
#define NODE_TOP 1
#define NODE_LOWER 2

#define NIL UINT32_MAX		/* no leaf / no space / empty hash slot */

/* Page size used to turn MB/s into pages/s for the rate limit. */
#define RL_PAGE_SIZE 4096u
#define RL_WINDOW_MS 1000u	/* the kernel's 1 s candidate window */
#define TH_PERIOD_MS 60000u	/* KMIGRATED_PROMOTION_THRESHOLD_WINDOW */
#define TH_STEPS 16u		/* NUMA_MIGRATION_ADJUST_STEPS */

/* leaf->flags */
#define LEAF_QUEUED 0x1u	/* on its node's ready FIFO */
#define LEAF_FREE 0x2u		/* on the slab free list */
#define LEAF_DYING 0x4u		/* being freed by pghot_space_remove() */

/*
 * Leaf header, 32 bytes, records follow inline: uint8_t[512] (default) or
 * uint32_t[512] (precise). Per page: 1 + 32/512 = 1.0625 bytes (default),
 * 4.0625 bytes (precise) before the index.
 */
struct leaf {
	uint64_t base_ms;	/* time of offset 0, multiple of bucket_ms */
	uint64_t key;		/* leaf_key(): page >> LEAF_SHIFT, space id */
	uint32_t next_ready;	/* node ready FIFO link, NIL at the tail */
	uint32_t next;		/* space leaf list, or slab free list */
	uint16_t nid;		/* the lower-tier node of every page here */
	uint16_t nr_ready;	/* records with the ready bit, 0..512 */
	uint16_t bucket_ms;	/* time unit of the records: 1 (precise) or
				 * 84..331 (default) */
	uint16_t flags;		/* LEAF_* */
};

_Static_assert(sizeof(struct leaf) == 32, "leaf header is 32 bytes");

/* Leaf number (43 bits) and space id (20 bits) in one word: one compare. */
static inline uint64_t leaf_key(uint32_t space_id, uint64_t leaf_no)
{
	return leaf_no | (uint64_t)space_id << LEAF_NO_BITS;
}

static inline uint64_t leaf_no_of(const struct leaf *l)
{
	return l->key & ((1ull << LEAF_NO_BITS) - 1);
}

static inline uint32_t leaf_space_of(const struct leaf *l)
{
	return (uint32_t)(l->key >> LEAF_NO_BITS);
}

struct space {
	uint64_t cookie;
	uint64_t last_ms;	/* latest now_ms seen: time never goes back */
	uint32_t leaves;	/* head of the leaf list (leaf->next) */
	uint32_t cache;		/* last leaf used, NIL if none */
	struct leaf *cache_leaf;	/* leaf_at(cache): chunks never move */
	uint32_t next_free;	/* free-id list link while unused */
	bool used;
};

/* Per node: info, memory state, gate state (as a target), ready FIFO (as a
 * lower-tier source). */
struct node {
	bool present;
	bool lower;
	bool mem_known;		/* pghot_engine_set_node_mem() was called */
	bool plenty;		/* free > wmark + max(1 GiB, total / 16) */
	bool th_started;	/* th_start/th_cand are valid */
	unsigned int th_adj;	/* adjusted hot threshold, ms; 0 = none */
	uint64_t th_start;	/* start of the current 60 s period, ms */
	uint64_t th_cand;	/* candidates counted at th_start */
	bool rl_started;
	uint64_t rl_start;	/* start of the current 1 s window, ms */
	uint64_t rl_cand;	/* candidates in the current 1 s window */
	uint64_t rl_denied;	/* denials counted as demand in this window */
	uint64_t th_denied;	/* denials counted as demand since th_start */
	uint64_t cnt_nrl, cnt_cand, cnt_success;
	uint32_t fifo_head, fifo_tail;	/* ready leaves, oldest first */
	uint64_t nr_ready;	/* ready records in this node's leaves */
	bool drop_dying;	/* space removal: FIFO holds dying leaves */
};

/* LEAVES_PER_CHUNK leaves; mem is NULL for a chunk given back. */
struct chunk {
	uint8_t *mem;
	uint32_t live;		/* leaves in use */
};

struct mem_acct {
	uint64_t records;	/* leaf chunks */
	uint64_t index;		/* hash table, chunk table */
	uint64_t other;		/* engine, nodes, spaces, transient buffers */
};

struct pghot_engine {
	enum pghot_mode mode;
	struct pghot_tunables t;
	unsigned int bucket_ms;	/* record time unit for the window, ms */
	uint64_t span_ms;	/* largest now - base_ms a record can hold */
	uint64_t bucket_mul;	/* x * bucket_mul >> 32 == x / bucket_ms for
				 * x <= span_ms (default mode) */
	size_t nr_nodes;
	struct node *nodes;
	uint8_t *kind;		/* NODE_* per nid: the record path's checks
				 * read one byte, not a struct node */

	struct space *spaces;
	uint32_t spaces_cap;	/* allocated entries */
	uint32_t spaces_hw;	/* ids below this have been handed out */
	uint32_t space_free;	/* free-id list head, NIL if empty */

	/* Leaf slab. */
	struct chunk *chunks;
	uint32_t chunks_cap;	/* entries of chunks[] */
	uint32_t nr_chunks;	/* chunks[0..nr_chunks) may be in use */
	uint32_t leaf_free;	/* free list head (leaf->next), NIL if none */
	size_t leaf_size;	/* header + records, bytes */
	uint64_t nr_leaves;	/* live leaves */

	/* Leaf index: open addressing, linear probing, 2^index_bits slots. */
	uint32_t *slots;
	unsigned int index_bits;
	uint64_t index_used;

	uint64_t nr_tracked;	/* non-zero records */
	uint64_t counters[PGHOT_COUNTER_MAX];
	struct mem_acct mem;
};

/* mem.c: allocations that count themselves in e->mem. */
void *mem_calloc(uint64_t *acct, size_t n, size_t size);
void mem_free(uint64_t *acct, void *p, size_t n, size_t size);
int mem_grow(uint64_t *acct, void **p, size_t old_n, size_t new_n,
	     size_t size);

/* leaf_index.c */
static inline struct leaf *leaf_at(const struct pghot_engine *e, uint32_t idx)
{
	return (struct leaf *)(void *)(e->chunks[idx >> CHUNK_SHIFT].mem +
		(size_t)(idx & (LEAVES_PER_CHUNK - 1)) * e->leaf_size);
}
/* Inline: the lookup is on the record path. */
static inline uint64_t key_hash(uint64_t key, int nid)
{
	/* Fibonacci hashing: one multiply on the path to the slot load; the
	 * caller takes the top bits, which every key bit reaches. The nid term
	 * does not depend on the key, so it costs no latency. */
	return (key ^ (uint64_t)(unsigned int)nid * 0xbf58476d1ce4e5b9ull) *
	       0x9e3779b97f4a7c15ull;
}

static inline size_t slot_of(uint64_t h, unsigned int bits)
{
	return (size_t)(h >> (64 - bits));
}

static inline bool leaf_matches(const struct leaf *l, uint64_t key,
				int nid)
{
	/* One branch for both fields: probe outcomes are hard to predict. */
	return !((l->key ^ key) | (uint64_t)(l->nid ^ (uint16_t)nid));
}

static inline uint32_t leaf_lookup(const struct pghot_engine *e,
				   uint64_t key, int nid)
{
	size_t mask, i;
	uint32_t idx;

	if (!e->slots)
		return NIL;
	mask = ((size_t)1 << e->index_bits) - 1;
	i = slot_of(key_hash(key, nid), e->index_bits);
	for (;;) {
		idx = e->slots[i];
		if (idx == NIL || leaf_matches(leaf_at(e, idx), key, nid))
			return idx;
		i = (i + 1) & mask;
	}
}

int leaf_create(struct pghot_engine *e, uint32_t space_id, uint64_t key,
		int nid, uint64_t now_ms, uint32_t *ret_idx);
void leaf_unindex(struct pghot_engine *e, uint32_t idx);
void leaf_release(struct pghot_engine *e, uint32_t idx);
void leaf_slab_trim(struct pghot_engine *e);
void leaf_index_free(struct pghot_engine *e);

/* record.c */
void record_set_window(struct pghot_engine *e);
struct rec_view {
	unsigned int freq;
	bool ready;
	bool in_reach;		/* freq > 0: time is meaningful */
	uint64_t time_ms;	/* last access, start of its bucket */
	int nid;		/* precise: accessor or PGHOT_NID_UNKNOWN */
};
void record_read(const struct pghot_engine *e, const struct leaf *l,
		 unsigned int slot, struct rec_view *ret);
bool record_is_ready(const struct pghot_engine *e, const struct leaf *l,
		     unsigned int slot);
bool record_is_set(const struct pghot_engine *e, const struct leaf *l,
		   unsigned int slot);
void record_clear(struct pghot_engine *e, struct leaf *l, unsigned int slot);
unsigned int leaf_count_set(const struct pghot_engine *e,
			    const struct leaf *l);
uint64_t record_age_ms(const struct pghot_engine *e, const struct leaf *l,
		       const struct rec_view *v, uint64_t now_ms);
uint64_t leaf_newest_ms(const struct pghot_engine *e, const struct leaf *l);

/* ready_queue.c: per lower-tier node FIFO of leaves with ready records */
void ready_enqueue(struct pghot_engine *e, uint32_t idx);
void ready_drop_dying(struct pghot_engine *e, int nid);

/* ratelimit.c: the promotion gate of one target node. */
enum gate {
	GATE_NRL,		/* plenty of free memory: promote, no limit */
	GATE_CANDIDATE,		/* passed threshold and rate limit */
	GATE_COLD,		/* older than the hot threshold: drop */
	GATE_LIMITED,		/* over the rate limit: keep ready */
};
enum gate gate_check(struct pghot_engine *e, int target, uint64_t age_ms,
		     uint64_t now_ms);
unsigned int gate_threshold_ms(const struct pghot_engine *e, int nid);
uint64_t rate_limit_pages(const struct pghot_engine *e);

/* tunables.c */
int tunables_check_engine(const struct pghot_tunables *t, enum pghot_mode mode,
			  const struct node *nodes, size_t nr_nodes);

#endif /* PGHOT_LIB_INTERNAL_H */
