/* rawloop: the smallest sequential HTTP/1.1 GET loop, written independently of httpbench (in C, with no
 * library), to measure httpbench's harness overhead: its `raw` client against this, on the same server.
 * Usage: rawloop HOST PORT PATH reuse|fresh N [WARMUP]
 *   -> prints "<ok> <seconds> <requests per wall second> <requests per CPU second>"
 * WARMUP requests (default 0) run first, untimed, as httpbench's --warmup does. CPU is user + sys of this
 * process (one thread) over the timed loop, from getrusage, as httpbench's CPU rate is.
 * Reads each response head, then Content-Length bytes of body; fresh mode sends Connection: close and opens a
 * new connection per request. Exits non-zero on any failure. */
#define _GNU_SOURCE /* strcasestr */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int open_conn(const char *host, int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One exchange on fd; returns body bytes, or -1. */
static long exchange(int fd, const char *req, size_t req_len, char *buf, size_t cap) {
    if (write(fd, req, req_len) != (ssize_t)req_len) return -1;
    size_t filled = 0;
    char *end = NULL;
    while (!end) {
        ssize_t n = read(fd, buf + filled, cap - filled - 1);
        if (n <= 0) return -1;
        filled += (size_t)n;
        buf[filled] = 0;
        end = strstr(buf, "\r\n\r\n");
        if (!end && filled >= cap - 1) return -1;
    }
    char *cl = strcasestr(buf, "\r\ncontent-length:");
    if (!cl || cl > end) return -1;
    long len = strtol(cl + 17, NULL, 10);
    long got = (long)(filled - (size_t)(end + 4 - buf));
    while (got < len) {
        ssize_t n = read(fd, buf, cap);
        if (n <= 0) return -1;
        got += n;
    }
    return len;
}

static double tv_secs(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

/* n exchanges; *fd carries a kept-alive connection across calls in reuse mode. */
static int loop(const char *host, int port, const char *req, size_t req_len, char *buf, size_t cap, int fresh,
                long n, int *fd) {
    for (long i = 0; i < n; i++) {
        if (*fd < 0 && (*fd = open_conn(host, port)) < 0) return -1;
        if (exchange(*fd, req, req_len, buf, cap) < 0) return -1;
        if (fresh) {
            close(*fd);
            *fd = -1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: rawloop HOST PORT PATH reuse|fresh N [WARMUP]\n");
        return 2;
    }
    const char *host = argv[1], *path = argv[3];
    int port = atoi(argv[2]), fresh = strcmp(argv[4], "fresh") == 0;
    long n = atol(argv[5]), warmup = argc == 7 ? atol(argv[6]) : 0;
    char req[512];
    int req_len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: rawloop\r\n%s\r\n", path,
                           host, port, fresh ? "Connection: close\r\n" : "");
    static char buf[65536];
    int fd = -1;
    if (loop(host, port, req, (size_t)req_len, buf, sizeof buf, fresh, warmup, &fd) < 0) return 1;
    struct timespec t0, t1;
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (loop(host, port, req, (size_t)req_len, buf, sizeof buf, fresh, n, &fd) < 0) return 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    getrusage(RUSAGE_SELF, &r1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = tv_secs(r1.ru_utime) - tv_secs(r0.ru_utime) + tv_secs(r1.ru_stime) - tv_secs(r0.ru_stime);
    printf("%ld %.6f %.1f %.1f\n", n, secs, (double)n / secs, cpu > 0 ? (double)n / cpu : 0.0);
    return 0;
}
