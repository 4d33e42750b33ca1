// GNU libmicrohttpd from Debian (libmicrohttpd-dev): the page, the API and /metrics behind --http.
// MHD_start_daemon takes its options as varargs, which Swift cannot pass: this wrapper passes the
// ones lookd sets.
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <microhttpd.h>

// libmicrohttpd's messages, a line at a time, to lookd's own handler (which says which are worth
// a journal line): its logger takes a format and a va_list, which Swift cannot take.
typedef void (*lookd_mhd_line_handler)(const char *line);
static void lookd_mhd_log(void *handler, const char *format, va_list arguments) {
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    ((lookd_mhd_line_handler)handler)(line);
}

// The port is also given as MHD_start_daemon's own argument, which it ignores beside SOCK_ADDR but
// names in its messages ("Failed to bind to port 8470"). `connection` is told when a connection
// starts and closes, `completed` when a request has been answered (both with `context`): the
// server's guard of its connection slots.
static inline struct MHD_Daemon *lookd_mhd_start(unsigned int flags, unsigned short port, const struct sockaddr *address,
                                                 MHD_AccessHandlerCallback handler, void *context,
                                                 unsigned int connection_limit, unsigned int timeout_seconds,
                                                 unsigned int per_address_limit, lookd_mhd_line_handler log,
                                                 MHD_NotifyConnectionCallback connection, MHD_RequestCompletedCallback completed) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
                            MHD_OPTION_EXTERNAL_LOGGER, lookd_mhd_log, (void *)log,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                            MHD_OPTION_NOTIFY_CONNECTION, connection, context,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024),
                            MHD_OPTION_END);
}

// A connection's socket (MHD_get_connection_info is variadic, which Swift cannot call); -1 when unknown.
static inline int lookd_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

static const enum MHD_ConnectionNotificationCode LOOKD_MHD_CONNECTION_STARTED = MHD_CONNECTION_NOTIFY_STARTED;

// Enumerators and macros as constants Swift can name.
static const enum MHD_Result LOOKD_MHD_YES = MHD_YES;
static const enum MHD_Result LOOKD_MHD_NO = MHD_NO;
static const uint64_t LOOKD_MHD_SIZE_UNKNOWN = MHD_SIZE_UNKNOWN;
static const enum MHD_ResponseMemoryMode LOOKD_MHD_RESPMEM_MUST_COPY = MHD_RESPMEM_MUST_COPY;
static const enum MHD_ValueKind LOOKD_MHD_HEADER_KIND = MHD_HEADER_KIND;
static const enum MHD_ValueKind LOOKD_MHD_GET_ARGUMENT_KIND = MHD_GET_ARGUMENT_KIND;
