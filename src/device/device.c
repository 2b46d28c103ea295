/* SPDX-License-Identifier: MIT */
/*
 * The process's instance of the software HCA: configuration, the BAR (UAR
 * pages followed by device memory) and the firmware that executes PRM
 * commands. Opened on first use, shared and reference counted.
 *
 * FORK. An instance belongs to the process that created it. A fork child
 * inherits a copy of it without its threads, with locks possibly held and
 * with the parent's slot in the shared segment: the child must never run
 * it. Every entry point refuses an inherited instance (commands fail with
 * EIO, doorbells are dropped, nothing reaches the engine or the segment;
 * one debug line), closing it forgets it, and the child's first open
 * abandons it -- nothing of it is freed, joined or detached -- and builds
 * the child's own (its slot, threads and numbers).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device/device.h"
#include "device/engine/engine.h"
#include "device/fabric/direct.h"
#include "device/fabric/shm.h"
#include "device/fw/fw.h"
#include "util/log.h"

/* UAR pages in the BAR (4 KiB each; page 0 is the device's own). */
#define SMX_NR_UARS 512u
#define SMX_UAR_SIZE 4096u

#define SMX_NR_VECTORS 256u

struct smx_irq {
	smx_irq_fn fn;
	void *arg;
};

struct smx_dev {
	pid_t pid;		/* the process that created it */
	bool refused;		/* an inherited instance said so once */
	struct smx_dev *orphan;	/* older abandoned instances */
	unsigned int refs;
	pthread_mutex_t irq_lock;
	struct smx_irq irq[SMX_NR_VECTORS];
	struct smx_config cfg;
	struct fw *fw;
	struct eng *eng;	/* the data-path engine (src/device/engine) */
	uint8_t *bar;
	size_t bar_size;
	uint64_t memic_base;
	uint64_t memic_size;
	struct smx_shm *shm;	/* host-wide segment; NULL: alone */
};

static pthread_mutex_t smx_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct smx_dev *smx_dev_instance;
/* Instances inherited across fork and abandoned: kept (inherited contexts
 * still point to them), never run. */
static struct smx_dev *smx_dev_orphans;
/* getpid() without a system call on the doorbell path: set at the first
 * open and again in every fork child (pthread_atfork). */
static pid_t smx_dev_self;
static pthread_once_t smx_dev_once = PTHREAD_ONCE_INIT;

/* Every instance this process holds, the orphans included (a child may
 * still run commands on its copies of them). */
static void smx_dev_fw_all(void (*fn)(struct fw *))
{
	struct smx_dev *d;

	if (smx_dev_instance && smx_dev_instance->fw)
		fn(smx_dev_instance->fw);
	for (d = smx_dev_orphans; d; d = d->orphan)
		if (d->fw)
			fn(d->fw);
}

/*
 * fork(): no open or close mid-way, no firmware command or engine pass
 * mid-way (the child's copy of an instance is consistent and its lock
 * free), then registered memory is made private for the fork
 * (fabric/direct.c). The order -- firmware locks before the region lock --
 * is the one the engine takes them in.
 */
static void smx_dev_fork_prepare(void)
{
	pthread_mutex_lock(&smx_dev_lock);
	smx_dev_fw_all(fw_lock);
	smx_direct_fork_prepare();
}

static void smx_dev_fork_parent(void)
{
	smx_direct_fork_parent();
	smx_dev_fw_all(fw_unlock);
	pthread_mutex_unlock(&smx_dev_lock);
}

static void smx_dev_fork_child(void)
{
	__atomic_store_n(&smx_dev_self, getpid(), __ATOMIC_RELAXED);
	smx_direct_fork_child();
	smx_dev_fw_all(fw_unlock);
	pthread_mutex_unlock(&smx_dev_lock);
}

static void smx_dev_fork_init(void)
{
	__atomic_store_n(&smx_dev_self, getpid(), __ATOMIC_RELAXED);
	pthread_atfork(smx_dev_fork_prepare, smx_dev_fork_parent,
		       smx_dev_fork_child);
}

bool smx_dev_owned(const struct smx_dev *dev)
{
	return dev && dev->pid == __atomic_load_n(&smx_dev_self, __ATOMIC_RELAXED);
}

/*
 * Was @dev created by another process (we are its fork child)? Then it is
 * not ours to run: says so once (with SOFTMLX5_DEBUG) naming @what.
 */
static bool smx_dev_inherited(struct smx_dev *dev, const char *what)
{
	if (dev->pid == __atomic_load_n(&smx_dev_self, __ATOMIC_RELAXED))
		return false;
	if (!__atomic_exchange_n(&dev->refused, true, __ATOMIC_RELAXED))
		smx_dbg("device: %s refused: this instance belongs to pid %d "
			"and was inherited across fork (commands act on this "
			"process's copy, doorbells go nowhere; open the device "
			"again for one of this process's own)",
			what, (int)dev->pid);
	return true;
}

/* In a fork child: the parent's instance is left as it is, never run. */
static void smx_dev_abandon_locked(void)
{
	struct smx_dev *dev = smx_dev_instance;

	smx_dbg("device: pid %d inherited the instance of pid %d across fork; "
		"opening its own", (int)getpid(), (int)dev->pid);
	dev->orphan = smx_dev_orphans;
	smx_dev_orphans = dev;
	smx_dev_instance = NULL;
}

static void smx_dev_free(struct smx_dev *dev)
{
	eng_destroy(dev->eng);	/* before the objects it works on */
	fw_destroy(dev->fw);
	smx_shm_detach(dev->shm);	/* after the inbox thread stopped */
	pthread_mutex_destroy(&dev->irq_lock);
	if (dev->bar)
		munmap(dev->bar, dev->bar_size);
	free(dev);
}

static struct smx_dev *smx_dev_new(void)
{
	struct smx_dev *dev = calloc(1, sizeof(*dev));
	size_t dm;
	void *bar;

	if (!dev)
		return NULL;
	dev->pid = getpid();
	pthread_mutex_init(&dev->irq_lock, NULL);
	if (smx_config_load(&dev->cfg)) {
		pthread_mutex_destroy(&dev->irq_lock);
		free(dev);
		return NULL;
	}
	dm = (dev->cfg.max_dm_size + 4095) & ~(size_t)4095;
	dev->memic_base = (uint64_t)SMX_NR_UARS * SMX_UAR_SIZE;
	dev->memic_size = dm;
	dev->bar_size = dev->memic_base + dm;
	bar = mmap(NULL, dev->bar_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bar == MAP_FAILED) {
		smx_err("device: cannot map a %zu-byte BAR: %s", dev->bar_size,
			strerror(errno));
		pthread_mutex_destroy(&dev->irq_lock);
		free(dev);
		return NULL;
	}
	dev->bar = bar;
	dev->fw = fw_create(&dev->cfg, dm ? dev->bar + dev->memic_base : NULL,
			    dm, dev->memic_base, SMX_NR_UARS);
	if (!dev->fw) {
		smx_err("device: firmware failed to start");
		smx_dev_free(dev);
		return NULL;
	}
	fw_set_uar_pages(dev->fw, dev->bar);
	/* One device for every process of the user: a slot in the shared
	 * process table numbers this process's objects host-wide. */
	dev->shm = smx_shm_attach();
	fw_set_slot(dev->fw, smx_shm_slot(dev->shm));
	dev->eng = eng_create(dev, dev->fw, dev->bar, SMX_NR_UARS);
	if (!dev->eng) {
		smx_err("device: the data-path engine failed to start");
		smx_dev_free(dev);
		return NULL;
	}
	eng_fabric_start(dev->eng, dev->shm);
	return dev;
}

struct smx_dev *smx_dev_open(void)
{
	struct smx_dev *dev;

	pthread_once(&smx_dev_once, smx_dev_fork_init);
	pthread_mutex_lock(&smx_dev_lock);
	if (smx_dev_instance && smx_dev_instance->pid != getpid())
		smx_dev_abandon_locked();
	if (!smx_dev_instance)
		smx_dev_instance = smx_dev_new();
	dev = smx_dev_instance;
	if (dev)
		dev->refs++;
	pthread_mutex_unlock(&smx_dev_lock);
	return dev;
}

void smx_dev_close(struct smx_dev *dev)
{
	if (!dev || smx_dev_inherited(dev, "close"))
		return;	/* the parent's: its threads and slot are not ours */
	pthread_mutex_lock(&smx_dev_lock);
	if (dev == smx_dev_instance && --dev->refs == 0) {
		smx_dev_instance = NULL;
		smx_dev_free(dev);
	}
	pthread_mutex_unlock(&smx_dev_lock);
}

const struct smx_config *smx_dev_config(const struct smx_dev *dev)
{
	return &dev->cfg;
}

int smx_dev_cmd(struct smx_dev *dev, const void *in, size_t inlen, void *out,
		size_t outlen)
{
	if (!dev || !in || !out || inlen < 16 || outlen < 16)
		return -EINVAL;
	/* An inherited instance is the child's private copy: commands act on
	 * it alone (on hardware they would reach the parent's shared user
	 * context); nothing of it reaches the wire (doorbells are dropped). */
	fw_exec(dev->fw, in, inlen, out, outlen);
	return 0;
}

void *smx_dev_bar(struct smx_dev *dev, uint64_t offset, size_t len)
{
	if (!dev || offset > dev->bar_size || len > dev->bar_size - offset)
		return NULL;
	return dev->bar + offset;
}

uint64_t smx_dev_memic_base(const struct smx_dev *dev)
{
	return dev->memic_base;
}

/* For tests and tools: the firmware behind a device. */
struct fw *smx_dev_fw(struct smx_dev *dev)
{
	return dev->fw;
}

/*
 * MMIO. A store lands in the BAR page like on hardware (a BlueFlame buffer
 * then holds the WQE copy); a store into a UAR page is then handed to the
 * engine, which acts on doorbells before returning. Out-of-BAR or misaligned
 * stores are dropped, as a PCIe write to nowhere is. Device memory (MEMIC)
 * is plain memory.
 */
void smx_dev_mmio_write64(struct smx_dev *dev, uint64_t offset, uint64_t value)
{
	if (!dev || (offset & 7) || offset > dev->bar_size - 8 ||
	    smx_dev_inherited(dev, "doorbell"))
		return;
	__atomic_store_n((uint64_t *)(dev->bar + offset), value,
			 __ATOMIC_RELEASE);
	if (offset < dev->memic_base)
		eng_mmio_write(dev->eng, offset, &value, sizeof(value));
}

void smx_dev_mmio_write(struct smx_dev *dev, uint64_t offset, const void *buf,
			size_t len)
{
	if (!dev || !buf || !len || (offset & 3) || (len & 3) ||
	    offset > dev->bar_size || len > dev->bar_size - offset ||
	    smx_dev_inherited(dev, "doorbell"))
		return;
	memcpy(dev->bar + offset, buf, len);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (offset < dev->memic_base)
		eng_mmio_write(dev->eng, offset, buf, len);
}

bool smx_dev_progress(struct smx_dev *dev)
{
	return dev && !smx_dev_inherited(dev, "progress") &&
	       eng_fabric_progress(dev->eng);
}

int smx_dev_irq_register(struct smx_dev *dev, uint32_t vector, smx_irq_fn fn,
			 void *arg)
{
	int ret = 0;

	if (!dev || !fn || vector >= SMX_NR_VECTORS)
		return -EINVAL;
	if (smx_dev_inherited(dev, "interrupt registration"))
		return -EIO;
	pthread_mutex_lock(&dev->irq_lock);
	if (dev->irq[vector].fn)
		ret = -EBUSY;
	else
		dev->irq[vector] = (struct smx_irq){ fn, arg };
	pthread_mutex_unlock(&dev->irq_lock);
	return ret;
}

void smx_dev_irq_unregister(struct smx_dev *dev, uint32_t vector)
{
	if (!dev || vector >= SMX_NR_VECTORS ||
	    smx_dev_inherited(dev, "interrupt release"))
		return;	/* its lock may have been held at fork */
	pthread_mutex_lock(&dev->irq_lock);
	dev->irq[vector].fn = NULL;
	dev->irq[vector].arg = NULL;
	pthread_mutex_unlock(&dev->irq_lock);
}

void smx_dev_irq_fire(struct smx_dev *dev, uint32_t vector)
{
	struct smx_irq irq = { 0 };

	if (!dev || vector >= SMX_NR_VECTORS)
		return;
	pthread_mutex_lock(&dev->irq_lock);
	irq = dev->irq[vector];
	pthread_mutex_unlock(&dev->irq_lock);
	if (irq.fn)
		irq.fn(irq.arg, vector);
}

/* For tests and tools: the engine behind a device. */
struct eng *smx_dev_eng(struct smx_dev *dev)
{
	return dev->eng;
}
