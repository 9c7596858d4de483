/*
 * otf_parsers_impl.h — what the generated parsers (build/gen/otf/
 * otf_parsers.h) use; included by it only.
 */
#ifndef VFTR_OTF_PARSERS_IMPL_H
#define VFTR_OTF_PARSERS_IMPL_H

#include <string.h>

#include "OTF_HandlerArray.h"
#include "otf_dispatch.h"
#include "otf_internal.h"
#include "otf_parse.h"

#endif /* VFTR_OTF_PARSERS_IMPL_H */
