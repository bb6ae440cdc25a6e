#ifndef TIDINGS_CSOCKET_SHIM_H
#define TIDINGS_CSOCKET_SHIM_H

/* What the HTTP server needs beyond Swift's Glibc and Darwin modules: on Linux epoll, eventfd and TCP_INFO;
   everywhere, the few socket calls whose flags differ between Linux and Darwin. */

#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

/* The flags for send(2) that keep a write to a closed connection from raising SIGPIPE: MSG_NOSIGNAL where it
   exists; elsewhere (Darwin) 0, the socket then carrying SO_NOSIGPIPE (tidings_socket_prepare). */
static inline int tidings_send_flags(void) {
#ifdef MSG_NOSIGNAL
    return MSG_NOSIGNAL;
#else
    return 0;
#endif
}

/* Marks a socket close-on-exec and, where send(2) has no MSG_NOSIGNAL, SO_NOSIGPIPE. 0, or -1 with errno. */
static inline int tidings_socket_prepare(int fd) {
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) return -1;
#if !defined(MSG_NOSIGNAL) && defined(SO_NOSIGPIPE)
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof(on)) != 0) return -1;
#endif
    return 0;
}

/* A stream socket of `family`, close-on-exec from the start where SOCK_CLOEXEC exists. -1 with errno on failure. */
static inline int tidings_stream_socket(int family) {
#ifdef SOCK_CLOEXEC
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
#else
    int fd = socket(family, SOCK_STREAM, 0);
#endif
    if (fd >= 0 && tidings_socket_prepare(fd) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A pipe whose two ends are non-blocking and close-on-exec: the poll backend's wake-up, where there is no eventfd.
   0, or -1 with errno. */
static inline int tidings_wakeup_pipe(int ends[2]) {
    if (pipe(ends) != 0) return -1;
    for (int index = 0; index < 2; index++) {
        if (fcntl(ends[index], F_SETFL, fcntl(ends[index], F_GETFL) | O_NONBLOCK) != 0
            || fcntl(ends[index], F_SETFD, FD_CLOEXEC) != 0) {
            close(ends[0]);
            close(ends[1]);
            return -1;
        }
    }
    return 0;
}

/* Bytes written to the socket that its peer has not acknowledged yet (Linux's SIOCOUTQ, Darwin's SO_NWRITE), or -1
   when the system does not say: what a response's writes have delivered is what was written less these. */
static inline int64_t tidings_socket_unsent_bytes(int fd) {
    int pending = 0;
#if defined(__linux__) && defined(TIOCOUTQ)
    if (ioctl(fd, TIOCOUTQ, &pending) != 0) return -1;
#elif defined(SO_NWRITE)
    socklen_t length = sizeof(pending);
    if (getsockopt(fd, SOL_SOCKET, SO_NWRITE, &pending, &length) != 0) return -1;
#else
    (void)fd;
    return -1;
#endif
    return (int64_t)pending;
}

/* Makes the next close(2) of `fd` abortive (SO_LINGER of 0): the kernel resets the connection and drops what is still
   unsent, rather than go on delivering it to a client too slow to read it. 0, or -1 with errno. */
static inline int tidings_socket_abort_on_close(int fd) {
    struct linger option = {.l_onoff = 1, .l_linger = 0};
    return setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, sizeof(option));
}

/* Milliseconds since the socket last received data (Linux's TCP_INFO), or -1 when the kernel does not say. */
static inline int64_t tidings_socket_ms_since_data(int fd) {
#ifdef __linux__
    struct tcp_info info;
    socklen_t length = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    return (int64_t)info.tcpi_last_data_recv;
#else
    (void)fd;
    return -1;
#endif
}

#ifdef __linux__
/* Creates an epoll set (close-on-exec). -1 with errno on failure. */
static inline int tidings_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/* A non-blocking, close-on-exec eventfd: the epoll backend's wake-up. -1 with errno on failure. */
static inline int tidings_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/* epoll_event is packed on x86-64; these keep its layout on the C side. Edge-triggered, for reading (with the
   peer's hang-up), and for writing too when `writable` is set. */
static inline int tidings_epoll_add(int epoll, int fd, int writable, uint64_t token) {
    uint32_t events = EPOLLIN | EPOLLRDHUP | EPOLLET | (writable ? EPOLLOUT : 0);
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

#endif
