/*
 * nulltool.c — an OMPT tool that asks libomp for the same callbacks as
 * vftr's (the events of capture/ompt_events.def) and does nothing in them.  Preloaded into
 * ompbench by bench/omp/run.sh, it measures what the runtime itself spends
 * on dispatching the events to a tool, so that the benchmark can tell that
 * part from what vftr's callbacks add.  Built with clang -fopenmp -shared.
 */
#include <omp-tools.h>
#include <stddef.h>

#define NT_API __attribute__((visibility("default")))

static void thread_begin(ompt_thread_t type, ompt_data_t *data)
{
    (void)type;
    (void)data;
}

static void thread_end(ompt_data_t *data)
{
    (void)data;
}

static void parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                           unsigned int requested, int flags, const void *codeptr)
{
    (void)task;
    (void)frame;
    (void)parallel;
    (void)requested;
    (void)flags;
    (void)codeptr;
}

static void parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
    (void)parallel;
    (void)task;
    (void)flags;
    (void)codeptr;
}

static void implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                          unsigned int actual, unsigned int index, int flags)
{
    (void)endpoint;
    (void)parallel;
    (void)task;
    (void)actual;
    (void)index;
    (void)flags;
}

static void work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                 ompt_data_t *task, uint64_t count, const void *codeptr)
{
    (void)wstype;
    (void)endpoint;
    (void)parallel;
    (void)task;
    (void)count;
    (void)codeptr;
}

static void sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                        ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    (void)kind;
    (void)endpoint;
    (void)parallel;
    (void)task;
    (void)codeptr;
}

static void masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                   const void *codeptr)
{
    (void)endpoint;
    (void)parallel;
    (void)task;
    (void)codeptr;
}

static void mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                          ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)kind;
    (void)hint;
    (void)impl;
    (void)wait_id;
    (void)codeptr;
}

static void mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)kind;
    (void)wait_id;
    (void)codeptr;
}

static void mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)kind;
    (void)wait_id;
    (void)codeptr;
}

static void nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)endpoint;
    (void)wait_id;
    (void)codeptr;
}

static void task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task,
                        int flags, int has_dependences, const void *codeptr)
{
    (void)task;
    (void)frame;
    (void)new_task;
    (void)flags;
    (void)has_dependences;
    (void)codeptr;
}

static void task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    (void)prior;
    (void)status;
    (void)next;
}

/* the events vftr's tool registers (capture/ompt_events.def) */
static const struct {
    ompt_callbacks_t event;
    ompt_callback_t fn;
} events[] = {
#define VFTR_OMPT_EVENT(name) { ompt_callback_##name, (ompt_callback_t)name },
#include "ompt_events.def"
#undef VFTR_OMPT_EVENT
};

static int initialize(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *tool_data)
{
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");

    (void)initial_device;
    (void)tool_data;
    if (set == NULL)
        return 0;
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        set(events[i].event, events[i].fn);
    return 1;
}

static void finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
}

NT_API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version);

NT_API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version)
{
    static ompt_start_tool_result_t result = { .initialize = initialize, .finalize = finalize };

    (void)omp_version;
    (void)runtime_version;
    return &result;
}
