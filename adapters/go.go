// httpbench's adapter for Go's net/http client, built once by httpbench with `go build` (standard library
// alone). It speaks httpbench's command-client protocol (README, "Command clients"): read a count n per line on
// stdin, make n sequential GETs of $HTTPBENCH_URL, print "<ns> <status> <body_bytes>" or "<ns> 0 0 <kind>
// <reason>" per request, then "end". reuse = one http.Client on one Transport (its keep-alive pool); fresh = a
// new Transport and Client per request, its connection closed after it (a new connection and a full TLS
// handshake). The Transport speaks the one HTTP version of $HTTPBENCH_HTTP (HTTP/2 by ALPN alone, or HTTP/1.1
// with HTTP/2 switched off) and a response over another is a protocol failure; no proxy (the default Transport
// would read the environment's), no redirect followed, no compression (Go asks for gzip by default and
// decompresses); TLS trusts $HTTPBENCH_CACERT alone when given. Client.Timeout bounds the whole request, body
// included.
package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

var (
	url     = os.Getenv("HTTPBENCH_URL")
	reuse   = os.Getenv("HTTPBENCH_MODE") == "reuse"
	version = envOr("HTTPBENCH_HTTP", "1.1")
)

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// A client as httpbench wants them all: the one version asked, no proxy, no redirect, no compression.
func client(config *tls.Config, timeout time.Duration) *http.Client {
	t := &http.Transport{Proxy: nil, DisableCompression: true, TLSClientConfig: config.Clone()}
	if version == "2" {
		t.ForceAttemptHTTP2 = true
		t.TLSClientConfig.NextProtos = []string{"h2"}
	} else {
		// A non-nil empty map switches HTTP/2 off.
		t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		t.TLSClientConfig.NextProtos = []string{"http/1.1"}
	}
	if !reuse {
		t.DisableKeepAlives = true
	}
	never := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &http.Client{Transport: t, Timeout: timeout, CheckRedirect: never}
}

// One GET: "<status> <bytes>", or "0 0 <kind> <reason>".
func get(c *http.Client) string {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return "0 0 other " + reason(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "0 0 " + kind(err) + " " + reason(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return "0 0 " + kind(err) + " " + reason(err)
	}
	if want := map[string]int{"1.1": 1, "2": 2}[version]; resp.ProtoMajor != want {
		return fmt.Sprintf("0 0 protocol the response came over %s, not the HTTP/%s asked for", resp.Proto, version)
	}
	return fmt.Sprintf("%d %d", resp.StatusCode, n)
}

// An error's kind, in httpbench's names.
func kind(err error) string {
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return "timeout"
	}
	text := strings.ToLower(err.Error())
	switch {
	case strings.Contains(text, "timeout"):
		return "timeout"
	case strings.Contains(text, "x509") || strings.Contains(text, "tls") || strings.Contains(text, "certificate"):
		return "tls"
	case strings.Contains(text, "no such host") || strings.Contains(text, "lookup"):
		return "dns"
	case strings.Contains(text, "connection refused"):
		return "connect"
	case strings.Contains(text, "unexpected eof") || strings.Contains(text, "content-length"):
		return "truncated"
	case strings.Contains(text, "reset") || strings.Contains(text, "broken pipe") || text == "eof" ||
		strings.HasSuffix(text, ": eof") || strings.Contains(text, "server closed"):
		return "reset"
	case strings.Contains(text, "malformed") || strings.Contains(text, "protocol") || strings.Contains(text, "header") ||
		strings.Contains(text, "invalid") || strings.Contains(text, "frame"):
		return "protocol"
	}
	return "other"
}

// An error as the one-line reason after the kind, control characters out, at most 300 characters.
func reason(err error) string {
	text := strings.Join(strings.Fields(err.Error()), " ")
	text = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, text)
	if len(text) > 300 {
		text = text[:300]
	}
	return text
}

// Over https with a CA given: trust the certificates of that PEM file alone.
func tlsConfig() (*tls.Config, error) {
	config := &tls.Config{}
	if path := os.Getenv("HTTPBENCH_CACERT"); path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in %s", path)
		}
		config.RootCAs = pool
	}
	return config, nil
}

func main() {
	if len(os.Args) != 2 || os.Args[1] != "http" {
		fmt.Fprintln(os.Stderr, "usage: go-adapter http")
		os.Exit(2)
	}
	if version != "1.1" && version != "2" {
		fmt.Fprintf(os.Stderr, "unavailable: net/http speaks HTTP/1.1 and HTTP/2, not HTTP/%s\n", version)
		os.Exit(3)
	}
	seconds, err := strconv.ParseFloat(envOr("HTTPBENCH_TIMEOUT", "10"), 64)
	config, cerr := tlsConfig()
	if err != nil || cerr != nil {
		fmt.Fprintln(os.Stderr, "bad HTTPBENCH_TIMEOUT or HTTPBENCH_CACERT:", err, cerr)
		os.Exit(2)
	}
	timeout := time.Duration(seconds * float64(time.Second))
	var shared *http.Client
	if reuse {
		shared = client(config, timeout)
	}
	out := bufio.NewWriter(os.Stdout)
	head := fmt.Sprintf("version net/http (Go %s%s)\n", strings.TrimPrefix(runtime.Version(), "go"),
		map[bool]string{true: "", false: ", a Transport per request"}[reuse])
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		out.WriteString(head)
		head = ""
		n, _ := strconv.Atoi(strings.TrimSpace(in.Text()))
		flushed := time.Now()
		for ; n > 0; n-- {
			// Lines are written in bunches, at least every 0.2 s: httpbench wants each line within --timeout + 2 s.
			if time.Since(flushed) > 200*time.Millisecond {
				out.Flush()
				flushed = time.Now()
			}
			c := shared
			if c == nil {
				c = client(config, timeout)
			}
			t0 := time.Now()
			result := get(c)
			ns := time.Since(t0).Nanoseconds()
			if !reuse {
				c.CloseIdleConnections()
			}
			fmt.Fprintf(out, "%d %s\n", max1(ns), result)
		}
		out.WriteString("end\n")
		out.Flush()
	}
}

func max1(ns int64) int64 {
	if ns < 1 {
		return 1
	}
	return ns
}
