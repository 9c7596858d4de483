/*
 * compat_layout.h — the shape of the trace that otf_write_all writes: process
 * ids, the time grid and the record kinds of one round.
 *
 * test/integration/otf_compat_common.sh repeats these numbers to compute the
 * record counts a reader must report (for the whole trace and for time
 * windows); change both together.
 */
#ifndef VFTR_COMPAT_LAYOUT_H
#define VFTR_COMPAT_LAYOUT_H

#include <stdint.h>

#define NPROCS 6u          /* processes 1..NPROCS, mapped round robin */
#define NFUNCS 5u          /* functions 1..NFUNCS */
#define VICTIM 0x40u       /* process alone on the stream with the time error */
#define T0     0x1000u     /* start of round 0 */
#define SLOT   0x10u       /* time between two record kinds of a round */
#define ROUND  0x200u      /* length of a round */

/* Event record kinds, in the order (and slot) they are written in a round. */
enum {
    EV_ENTER, EV_SEND, EV_RECV, EV_COUNTER, EV_COLLOP, EV_BEGINCOLLOP, EV_ENDCOLLOP,
    EV_COMMENT, EV_FILEOP, EV_BEGINFILEOP, EV_ENDFILEOP, EV_RMAPUT, EV_RMAPUTRE,
    EV_RMAGET, EV_RMAEND, EV_NOOP, EV_LEAVE, EV_KINDS
};

/* Snapshot record kinds of a round (same time grid as the events). */
enum {
    SN_COMMENT, SN_ENTER, SN_SEND, SN_OPENFILE, SN_BEGINCOLLOP, SN_BEGINFILEOP,
    SN_COLLOPCOUNT, SN_COUNTER, SN_KINDS
};

/* Summary record kinds of a round. */
enum {
    ST_COMMENT, ST_FUNCTION, ST_FUNCTIONGROUP, ST_MESSAGE, ST_COLLOP, ST_FILEOP,
    ST_FILEGROUPOP, ST_KINDS
};

/* Time of the record of kind k of process p in round r: processes 2i+1 and
 * 2i+2 share a time stamp. */
static inline uint64_t event_time(uint32_t r, uint32_t k, uint32_t p)
{
    return T0 + (uint64_t)r * ROUND + (uint64_t)k * SLOT + (p - 1) / 2;
}

/* Time of the epilogue (Leave main, EndProcess) of process p. */
static inline uint64_t end_time(uint32_t rounds, uint32_t p)
{
    return T0 + (uint64_t)rounds * ROUND + (p - 1) / 2;
}

#endif
