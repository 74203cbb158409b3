#!/usr/bin/perl
# Writes what Perl's own Benchmark.pm prints for the times in scenarios.json: the golden files that
# shared/tests/perl_golden.rs compares httpbench's Perl-style renderer against.
# Usage: perl golden.pl [OUT_DIR]   (default: golden/ beside this script)
use strict;
use warnings;
use Benchmark qw(timethese cmpthese :hireswallclock);
use JSON::PP;
use File::Basename qw(dirname);

my $here = dirname(__FILE__);
my $out_dir = $ARGV[0] // "$here/golden";
open(my $fh, '<', "$here/scenarios.json") or die "scenarios.json: $!";
my $scenarios = decode_json(do { local $/; <$fh> });

# timethis() times the code through timeit(); hand it the chosen times instead of running anything.
{
    no warnings 'redefine';
    *Benchmark::timeit = sub { my ($n, $code) = @_; return $code->(); };
}

for my $s (@$scenarios) {
    my %code;
    my $n = $s->{cases}[0]{n};
    for my $c (@{ $s->{cases} }) {
        my $t = bless [ $c->{real}, $c->{user}, $c->{sys}, 0, 0, $c->{n} ], 'Benchmark';
        $code{ $c->{name} } = sub { $t };
    }
    my $text = '';
    {
        open(my $mem, '>', \$text) or die;
        my $old = select($mem);
        my $r = timethese($n, \%code);
        cmpthese($r);
        select($old);
        close($mem);
    }
    open(my $o, '>', "$out_dir/$s->{name}.txt") or die "$out_dir/$s->{name}.txt: $!";
    print $o $text;
    close($o);
}
