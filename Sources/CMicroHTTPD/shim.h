#ifndef TIDINGS_CMICROHTTPD_SHIM_H
#define TIDINGS_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

/* MHD_get_daemon_info and MHD_get_connection_info are variadic, so Swift cannot call them. */

static inline const struct sockaddr *tidings_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

static inline int tidings_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/* Milliseconds since the socket last received data (TCP_INFO), or -1 when the kernel does not say. */
static inline int64_t tidings_socket_ms_since_data(int fd) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    return (int64_t)info.tcpi_last_data_recv;
}

#endif
