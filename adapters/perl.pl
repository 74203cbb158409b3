# httpbench's adapter for the seed's three Perl clients (www_bench.pl): LWP::UserAgent, HTTP::Lite and
# WWW::Curl::Easy, chosen by the first argument (lwp, lite, curl). It speaks httpbench's command-client
# protocol (README, "Command clients"): read a count n per line on stdin, make n sequential GETs of
# $HTTPBENCH_URL, print "<ns> <status> <body_bytes>" or "<ns> 0 0 <kind> <reason>" per request, then "end".
# fresh = a new client object per request, as the seed's subs do; reuse = one object for every request.
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

my $which = shift // '';
my $url = $ENV{HTTPBENCH_URL} or die "HTTPBENCH_URL is not set\n";
my $reuse = ($ENV{HTTPBENCH_MODE} // 'fresh') eq 'reuse';
my $timeout = $ENV{HTTPBENCH_TIMEOUT} || 10;
# Over https: the CA file to trust (verification stays on), when httpbench was given one.
my $ca = $ENV{HTTPBENCH_CACERT};
my @lwp_tls = $ca ? (ssl_opts => { SSL_ca_file => $ca, verify_hostname => 1 }) : ();

# Each client: load its module (a missing one is reported as unavailable), make a client, get once.
my %clients = (
    lwp => {
        module => 'LWP::UserAgent',
        make => sub {
            LWP::UserAgent->new(timeout => $timeout, keep_alive => $reuse ? 1 : 0, max_redirect => 0, @lwp_tls);
        },
        get => \&lwp_get,
        alarm => 1,
    },
    lite => { module => 'HTTP::Lite', make => sub { HTTP::Lite->new }, get => \&lite_get, alarm => 1 },
    # libcurl's CURLOPT_TIMEOUT_MS is a deadline for the whole request already: no alarm needed.
    curl => { module => 'WWW::Curl::Easy', make => \&curl_new, get => \&curl_get, alarm => 0 },
);
my $client = $clients{$which} or die "usage: perl.pl lwp|lite|curl\n";
if ($which eq 'lite' && $url =~ /^https:/i) {
    print STDERR "unavailable: HTTP::Lite speaks plain http only\n";
    exit 3;
}
if ($which eq 'lwp' && $url =~ /^https:/i && !eval { require LWP::Protocol::https; 1 }) {
    print STDERR "unavailable: Perl module LWP::Protocol::https is not installed\n";
    exit 3;
}
unless (eval "require $client->{module}; 1") {
    print STDERR "unavailable: Perl module $client->{module} is not installed\n";
    exit 3;
}
my $version = $client->{module}->VERSION;
my $note = $which eq 'lite' ? ', no keep-alive' : $which eq 'curl' ? ', ' . WWW::Curl::Easy::version() : '';
my $line = "version $client->{module} $version (perl " . sprintf('%vd', $^V) . "$note)\n";

# Lines are written in bunches, at least every FLUSH_SECS: httpbench wants each line within --timeout + 2 s.
use constant FLUSH_SECS => 0.2;
$| = 0;
my $shared = $reuse ? $client->{make}->() : undef;
while (my $n = <STDIN>) {
    chomp $n;
    my $out = $line;
    $line = '';
    my $flushed = clock_gettime(CLOCK_MONOTONIC);
    for (1 .. $n) {
        my $t0 = clock_gettime(CLOCK_MONOTONIC);
        my $request = sub { $client->{get}->($shared // $client->{make}->()) };
        my ($status, $bytes, $kind, $why) = attempt($request, $client->{alarm});
        my $t1 = clock_gettime(CLOCK_MONOTONIC);
        my $ns = int(($t1 - $t0) * 1e9);
        $out .= $kind ? "$ns 0 0 $kind " . one_line($why // '') . "\n" : "$ns $status $bytes\n";
        if ($t1 - $flushed > FLUSH_SECS) {
            print $out;
            STDOUT->flush;
            ($out, $flushed) = ('', $t1);
        }
    }
    print $out, "end\n";
    STDOUT->flush;
}

# A library's message as the one-line reason after the kind: whitespace and control characters folded.
sub one_line {
    my ($m) = @_;
    $m =~ s/[\x00-\x1f\x7f\s]+/ /g;
    $m =~ s/^ | $//g;
    return substr($m, 0, 300);
}

# Run one request; a library's error becomes a failure line (kind and reason). With $alarm, --timeout is a deadline for the whole
# request (LWP's and HTTP::Lite's own timeouts are per read, or none; libcurl's is whole already).
sub attempt {
    my ($request, $alarm) = @_;
    my @r;
    if (!$alarm) {
        @r = eval { $request->() };
        return @r ? @r : (0, 0, kind_of($@), $@);
    }
    @r = eval {
        local $SIG{ALRM} = sub { die "httpbench deadline\n" };
        Time::HiRes::alarm($timeout);
        my @got = $request->();
        Time::HiRes::alarm(0);
        @got;
    };
    Time::HiRes::alarm(0);
    return @r if @r;
    return (0, 0, 'timeout', "no answer within --timeout ($timeout s)") if $@ =~ /httpbench deadline/;
    return (0, 0, kind_of($@), $@);
}

# An error message's kind, in httpbench's names.
sub kind_of {
    my ($m) = @_;
    return 'timeout' if $m =~ /time(d)? ?out|httpbench deadline/i;
    # Before 'connect': LWP words a refused certificate as "Can't connect to H:P (hostname verification failed)".
    return 'tls' if $m =~ /SSL|certificate|verification failed|verify failed/i;
    return 'dns' if $m =~ /resolve|name or service|bad hostname|host not found/i;
    return 'connect' if $m =~ /can't connect|refused/i;
    return 'reset' if $m =~ /reset|closed|EOF|empty reply/i;
    return 'other';
}

sub lwp_get {
    my ($ua) = @_;
    my $r = $ua->get($url);
    # LWP reports its own failures as a 500 with a Client-Warning header, not as an answer of the server.
    if (($r->header('Client-Warning') // '') eq 'Internal response') {
        return (0, 0, kind_of($r->message), $r->message);
    }
    # A die inside LWP's read loop (our deadline's alarm among them) ends the body early: LWP says so in X-Died.
    my $died = $r->header('X-Died') // '';
    return (0, 0, 'timeout', "no answer within --timeout ($timeout s)") if $died =~ /httpbench deadline|timeout/i;
    return (0, 0, 'reset', $died) if $died =~ /reset by peer/i;
    return (0, 0, 'truncated', $died || 'the body was cut short') if $died || $r->header('Client-Aborted');
    return with_length_checked($r->code, length(${ $r->content_ref }), $r->header('Content-Length'));
}

sub lite_get {
    my ($http) = @_;
    $http->reset;
    my $code = $http->request($url);
    # HTTP::Lite leaves the reason of a failed connection in $!.
    my $why = "$! " . ($http->status_message // '');
    return (0, 0, kind_of($why), $why) unless $code;
    my $declared = $http->get_header('Content-Length');
    $declared = $declared->[0] if ref $declared;
    return with_length_checked($code, length($http->body // ''), $declared);
}

# A body shorter than its Content-Length is `truncated`: LWP and HTTP::Lite hand over what came without a word.
sub with_length_checked {
    my ($code, $got, $declared) = @_;
    return (0, 0, 'truncated', "$got of $declared body bytes") if defined $declared && $declared =~ /^\d+$/ && $got < $declared;
    return ($code, $got);
}

sub curl_new {
    my $curl = WWW::Curl::Easy->new;
    $curl->setopt(WWW::Curl::Easy::CURLOPT_HEADER(), 1);
    $curl->setopt(WWW::Curl::Easy::CURLOPT_URL(), $url);
    $curl->setopt(WWW::Curl::Easy::CURLOPT_NOSIGNAL(), 1);
    $curl->setopt(WWW::Curl::Easy::CURLOPT_NOPROXY(), '*');
    $curl->setopt(WWW::Curl::Easy::CURLOPT_TIMEOUT_MS(), int($timeout * 1000));
    $curl->setopt(WWW::Curl::Easy::CURLOPT_CAINFO(), $ca) if $ca;
    return $curl;
}

sub curl_get {
    my ($curl) = @_;
    my $body;
    open(my $sink, '>', \$body) or die "in-memory file: $!";
    $curl->setopt(WWW::Curl::Easy::CURLOPT_WRITEDATA(), $sink);
    my $rc = $curl->perform;
    return (0, 0, curl_kind($rc, $curl), $curl->strerror($rc) . ' ' . ($curl->errbuf // '')) if $rc != 0;
    return ($curl->getinfo(WWW::Curl::Easy::CURLINFO_HTTP_CODE()),
        int($curl->getinfo(WWW::Curl::Easy::CURLINFO_SIZE_DOWNLOAD())));
}

# libcurl's error codes (curl.h), in httpbench's names.
sub curl_kind {
    my ($rc, $curl) = @_;
    my %kinds = (6 => 'dns', 7 => 'connect', 28 => 'timeout', 18 => 'truncated', 52 => 'reset', 56 => 'reset',
        8 => 'protocol', 1 => 'protocol', map { $_ => 'tls' } 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91);
    return $kinds{$rc} // kind_of($curl->strerror($rc));
}
