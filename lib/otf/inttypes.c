/*
 * inttypes.c — conversions between counter values and C types.  A counter
 * value is a 64-bit pattern; these functions only move bits.
 */
#include <string.h>

#include "OTF_inttypes.h"

uint64_t OTF_Unsigned2Counter(uint64_t value) { return value; }
uint64_t OTF_Counter2Unsigned(uint64_t value) { return value; }
uint64_t OTF_Signed2Counter(int64_t value) { return (uint64_t)value; }
int64_t OTF_Counter2Signed(uint64_t value) { return (int64_t)value; }

uint64_t OTF_Float2Counter(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

float OTF_Counter2Float(uint64_t value)
{
    uint32_t bits = (uint32_t)value;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint64_t OTF_Double2Counter(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

double OTF_Counter2Double(uint64_t value)
{
    double d;
    memcpy(&d, &value, sizeof d);
    return d;
}
