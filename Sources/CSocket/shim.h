#ifndef TIDINGS_CSOCKET_SHIM_H
#define TIDINGS_CSOCKET_SHIM_H

/* What the HTTP server needs from Linux beyond Swift's Glibc module: epoll, eventfd and TCP_INFO. */

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

/* Milliseconds since the socket last received data (TCP_INFO), or -1 when the kernel does not say. */
static inline int64_t tidings_socket_ms_since_data(int fd) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    return (int64_t)info.tcpi_last_data_recv;
}

/* epoll_event is packed on x86-64; these keep its layout on the C side. */
static inline int tidings_epoll_add(int epoll, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data = {.u64 = token}};
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

/* Waits for up to `capacity` events; stores each one's token and events in the two arrays. */
static inline int tidings_epoll_wait(int epoll, uint64_t *tokens, uint32_t *events, int capacity, int timeout) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, ready, capacity, timeout);
    for (int index = 0; index < count; index++) {
        tokens[index] = ready[index].data.u64;
        events[index] = ready[index].events;
    }
    return count;
}

#endif
