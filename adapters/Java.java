// httpbench's adapter for Java's java.net.http.HttpClient (JDK 11 and later), run from source by `java FILE`.
// It speaks httpbench's command-client protocol (README, "Command clients"): read a count n per line on stdin,
// make n sequential GETs of $HTTPBENCH_URL, print "<ns> <status> <body_bytes>" or "<ns> 0 0 <kind> <reason>" per
// request, then "end". reuse = one HttpClient for every request (its own keep-alive pool); fresh = a new
// HttpClient per request (a new pool: a new connection and a full TLS handshake). Each client asks for the one
// HTTP version of $HTTPBENCH_HTTP and a response over another (HttpClient falls back to HTTP/1.1 when ALPN does
// not give h2) is a protocol failure; no proxy (the default would consult the system's proxy selector), no
// redirect followed, no compression (HttpClient asks for none); TLS trusts $HTTPBENCH_CACERT alone when given.
// --timeout bounds the whole request, body included (HttpRequest.timeout stops at the response's head).
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

public class Java {
    static final URI URL = URI.create(System.getenv("HTTPBENCH_URL"));
    static final boolean REUSE = "reuse".equals(System.getenv("HTTPBENCH_MODE"));
    static final String TIMEOUT = System.getenv().getOrDefault("HTTPBENCH_TIMEOUT", "10");
    static final long TIMEOUT_NS = (long) (Double.parseDouble(TIMEOUT) * 1e9);
    static final String HTTP = System.getenv().getOrDefault("HTTPBENCH_HTTP", "1.1");
    static final HttpClient.Version VERSION =
        "2".equals(HTTP) ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1;
    // Lines are written in bunches, at least every 0.2 s: httpbench wants each line within --timeout + 2 s.
    static final long FLUSH_NS = 200_000_000L;

    public static void main(String[] args) throws Exception {
        if (args.length != 1 || !args[0].equals("http")) {
            System.err.println("usage: java Java.java http");
            System.exit(2);
        }
        if (!HTTP.equals("1.1") && !HTTP.equals("2")) {
            System.err.println("unavailable: java.net.http speaks HTTP/1.1 and HTTP/2, not HTTP/" + HTTP);
            System.exit(3);
        }
        TrustManager[] trust = trust(System.getenv("HTTPBENCH_CACERT"));
        HttpClient shared = REUSE ? client(trust) : null;
        HttpRequest request = HttpRequest.newBuilder(URL).GET().header("Accept-Encoding", "identity").build();
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String head = "version java.net.http (Java " + Runtime.version() + ", " + System.getProperty("java.vm.name")
            + (REUSE ? "" : ", an HttpClient per request") + ")\n";
        for (String line; (line = in.readLine()) != null; ) {
            StringBuilder batch = new StringBuilder(head);
            head = "";
            long flushed = System.nanoTime();
            for (long i = Long.parseLong(line.trim()); i > 0; i--) {
                if (System.nanoTime() - flushed > FLUSH_NS) {
                    out.print(batch);
                    out.flush();
                    batch.setLength(0);
                    flushed = System.nanoTime();
                }
                long t0 = System.nanoTime();
                String result = get(shared != null ? shared : client(trust), request);
                batch.append(Math.max(1, System.nanoTime() - t0)).append(' ').append(result).append('\n');
            }
            out.print(batch.append("end\n"));
            out.flush();
        }
    }

    /**
     * A client as httpbench wants them all: the one version asked, no proxy, no redirect. Each has a TLS context
     * of its own: clients that share one (the default context, say) share its session cache, and a fresh
     * client would resume the session of the one before instead of making the full handshake a new client makes.
     */
    static HttpClient client(TrustManager[] trust) throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust, null);
        return HttpClient.newBuilder().version(VERSION).proxy(HttpClient.Builder.NO_PROXY)
            .followRedirects(HttpClient.Redirect.NEVER).sslContext(tls).build();
    }

    /** One GET: "<status> <bytes>", or "0 0 <kind> <reason>". */
    static String get(HttpClient client, HttpRequest request) {
        CompletableFuture<HttpResponse<byte[]>> pending =
            client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
        try {
            HttpResponse<byte[]> r = pending.get(TIMEOUT_NS, TimeUnit.NANOSECONDS);
            if (r.version() != VERSION) {
                return "0 0 protocol the response came over " + r.version() + ", not the " + VERSION + " asked for";
            }
            return r.statusCode() + " " + r.body().length;
        } catch (TimeoutException e) {
            pending.cancel(true);
            return "0 0 timeout no whole response within --timeout (" + TIMEOUT + " s)";
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return "0 0 " + kind(cause) + " " + reason(cause);
        } catch (InterruptedException e) {
            return "0 0 other interrupted";
        }
    }

    /** An exception's kind, in httpbench's names, from its class and message and those of its causes. */
    static String kind(Throwable e) {
        StringBuilder words = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            words.append(t.getClass().getName()).append(' ').append(t.getMessage()).append(' ');
        }
        String text = words.toString().toLowerCase();
        if (text.contains("timeout") || text.contains("timed out")) return "timeout";
        if (text.contains("ssl") || text.contains("certificat") || text.contains("pkix")) return "tls";
        if (text.contains("unresolvedaddress") || text.contains("unknownhost")) return "dns";
        if (text.contains("connectexception") || text.contains("connection refused")) return "connect";
        if (text.contains("fixed content-length") || text.contains("premature") || text.contains("eof reached")) {
            return "truncated";
        }
        if (text.contains("reset") || text.contains("connection closed") || text.contains("broken pipe")) return "reset";
        if (text.contains("protocol") || text.contains("invalid") || text.contains("bad ") || text.contains("header")) {
            return "protocol";
        }
        if (text.contains("eof") || text.contains("closed")) return "reset";
        return "other";
    }

    /** An exception as the one-line reason after the kind, control characters out, at most 300 characters. */
    static String reason(Throwable e) {
        String text = (e.getClass().getSimpleName() + ": " + e.getMessage()).replaceAll("[\\p{Cntrl}\\s]+", " ").trim();
        return text.length() > 300 ? text.substring(0, 300) : text;
    }

    /** What TLS trusts: the certificates of $HTTPBENCH_CACERT alone when given, else the JDK's own roots (null). */
    static TrustManager[] trust(String cacert) throws Exception {
        if (cacert == null || cacert.isEmpty()) return null;
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (FileInputStream pem = new FileInputStream(cacert)) {
            int n = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
                store.setCertificateEntry("ca" + n++, c);
            }
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory.getTrustManagers();
    }
}
