/*
 * OTF_inttypes.h — fixed-width integer types and the conversions between
 * counter values (always stored as 64-bit patterns) and C types.
 */
#ifndef OTF_INTTYPES_H
#define OTF_INTTYPES_H

#include <stdint.h>
#include <inttypes.h>

#define OTF_HAVE_STDINT_H   1
#define OTF_HAVE_INTTYPES_H 1
#define OTF_SIZEOF_LONG     8
#define OTF_UINT64_MAX      UINT64_MAX

#ifdef __cplusplus
extern "C" {
#endif

/* Counter values are 64-bit bit patterns.  Integers are widened (signed ones
 * by sign extension); floats are stored as their IEEE bits in the low 32 bits,
 * doubles as their 64 IEEE bits.  Each pair below is an exact round trip. */
uint64_t OTF_Unsigned2Counter(uint64_t value);
uint64_t OTF_Counter2Unsigned(uint64_t value);
uint64_t OTF_Signed2Counter(int64_t value);
int64_t  OTF_Counter2Signed(uint64_t value);
uint64_t OTF_Float2Counter(float value);
float    OTF_Counter2Float(uint64_t value);
uint64_t OTF_Double2Counter(double value);
double   OTF_Counter2Double(uint64_t value);

#ifdef __cplusplus
}
#endif

#endif /* OTF_INTTYPES_H */
