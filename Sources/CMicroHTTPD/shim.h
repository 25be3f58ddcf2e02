#ifndef HEARTH_CMICROHTTPD_SHIM_H
#define HEARTH_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// MHD_start_daemon is variadic; Swift calls this fixed-arity form, which passes every option through
/// MHD_OPTION_ARRAY (terminated by an MHD_OPTION_END entry).
static inline struct MHD_Daemon *hearth_mhd_start(unsigned int flags, uint16_t port,
                                                 MHD_AccessHandlerCallback handler, void *handler_cls,
                                                 struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port the daemon actually bound (useful with port 0), or 0 when unknown.
static inline uint16_t hearth_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The client's address of a connection, or NULL.
static inline const struct sockaddr *hearth_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// The socket of a connection, or -1.
static inline int hearth_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// MHD_set_connection_option is variadic; this sets the connection's inactivity timeout in seconds.
static inline void hearth_mhd_set_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    (void) MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

#ifdef __linux__
#include <sys/epoll.h>

/// epoll_event is a packed struct, which Swift cannot build reliably; these take and give plain descriptors.
/// Registers |fd| for readability (level-triggered).
static inline int hearth_epoll_add(int epoll_fd, int fd) {
    struct epoll_event event = {.events = EPOLLIN, .data = {.fd = fd}};
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

static inline int hearth_epoll_remove(int epoll_fd, int fd) {
    struct epoll_event event = {0};
    return epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, &event);
}

/// accept4(2) with SOCK_CLOEXEC (glibc declares accept4 only under _GNU_SOURCE, which Swift's import lacks).
int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
static inline int hearth_accept_cloexec(int listener, struct sockaddr *address, socklen_t *length) {
    return accept4(listener, address, length, SOCK_CLOEXEC);
}

/// Waits up to |timeout_ms| (-1: for ever); writes up to |max| ready descriptors into |fds| and returns how many.
static inline int hearth_epoll_wait(int epoll_fd, int *fds, int max, int timeout_ms) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int count = epoll_wait(epoll_fd, events, max, timeout_ms);
    for (int i = 0; i < count; i++) fds[i] = events[i].data.fd;
    return count;
}
#endif

#endif
