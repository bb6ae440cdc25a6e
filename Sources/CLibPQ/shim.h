#ifndef TIDINGS_CLIBPQ_SHIM_H
#define TIDINGS_CLIBPQ_SHIM_H

#include <libpq-fe.h>
#include <poll.h>

/// The pollfd for waiting until `socket` is readable (poll's event constants are macros).
static inline int tidings_pq_wait_readable(int socket, int timeout_milliseconds) {
    struct pollfd descriptor = {.fd = socket, .events = POLLIN, .revents = 0};
    return poll(&descriptor, 1, timeout_milliseconds);
}

#endif
