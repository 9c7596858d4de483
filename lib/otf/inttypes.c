/*
 * inttypes.c — conversions between counter values and C types.  A counter
 * value is a 64-bit pattern; these functions only move bits.
 */
#include "OTF_KeyValue.h"
#include "OTF_inttypes.h"

uint64_t OTF_Unsigned2Counter(uint64_t value) { return value; }
uint64_t OTF_Counter2Unsigned(uint64_t value) { return value; }
uint64_t OTF_Signed2Counter(int64_t value) { return (uint64_t)value; }
int64_t OTF_Counter2Signed(uint64_t value) { return (int64_t)value; }

/* Floating-point counters hold the IEEE bits: the same conversions as the
 * key-value lists' (OTF_KeyValue.h). */
uint64_t OTF_Float2Counter(float value) { return OTF_FloatToInt32(value); }
float OTF_Counter2Float(uint64_t value) { return OTF_Int32ToFloat((uint32_t)value); }
uint64_t OTF_Double2Counter(double value) { return OTF_DoubleToInt64(value); }
double OTF_Counter2Double(uint64_t value) { return OTF_Int64ToDouble(value); }
