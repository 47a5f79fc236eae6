#!/usr/bin/env bash
# Fails when code under Sources/ can crash on purpose and is not on the reviewed allowlist.
#
#   scripts/audit-crashes.sh            audit; exit 1 on an unreviewed hit
#   scripts/audit-crashes.sh --list     print every hit, allowlisted or not
#
# A hit is `try!`, `as!`, a postfix `!` (force unwrap, or an implicitly unwrapped type),
# `.unsafelyUnwrapped`, `fatalError(`, `precondition(`, `preconditionFailure(`, `assert(` or
# `assertionFailure(` in code (comments and string literals are skipped; interpolations are
# code). Nothing reachable from config, plugin or caller input may crash: such a hit is a bug
# to fix. Internal invariants stay, each listed in scripts/crash-allowlist.txt as
#
#   path:snippet  # reason
#
# where the hit's line (comments and strings removed) contains `snippet` (not a line number, so
# edits elsewhere in the file keep the entry valid). A snippet of `*` covers every hit of the
# file; a `*` in the path matches within one folder. Entries that match nothing are reported as
# stale.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-audit}"
allowlist=scripts/crash-allowlist.txt
command -v perl >/dev/null || { echo "audit-crashes: needs perl (Debian: perl-base)" >&2; exit 2; }

find Sources -name '*.swift' | sort | perl -e '
use strict;
use warnings;

my ($mode, $allowlist) = @ARGV;

# Code of one file with comments and string contents blanked, line by line.
sub code_lines {
    my ($text) = @_;
    my @out = ("");
    my @stack = ("code");   # code | string | mstring | block; interpolations push code
    my @parens = (0);       # paren depth per interpolation
    my $i = 0;
    my $n = length $text;
    my $raw = 0;            # number of # of the current raw string
    while ($i < $n) {
        my $c = substr($text, $i, 1);
        my $state = $stack[-1];
        if ($c eq "\n") { push @out, ""; $i++; next; }
        if ($state eq "code") {
            if (substr($text, $i, 2) eq "//") {
                $i++ while $i < $n && substr($text, $i, 1) ne "\n";
                next;
            }
            if (substr($text, $i, 2) eq "/*") { push @stack, "block"; $i += 2; next; }
            pos($text) = $i;
            if ($text =~ /\G(#*)("""|")/) {
                $raw = length $1;
                push @stack, ($2 eq q{"} ? "string" : "mstring");
                $out[-1] .= q{"};
                $i += length($1) + length($2);
                next;
            }
            if ($c eq "(" && @parens > 1) { $parens[-1]++; }
            if ($c eq ")" && @parens > 1) {
                if ($parens[-1] == 0) { pop @stack; pop @parens; $out[-1] .= ")"; $i++; next; }
                $parens[-1]--;
            }
            $out[-1] .= $c; $i++; next;
        }
        if ($state eq "block") {
            if (substr($text, $i, 2) eq "*/") { pop @stack; $i += 2; next; }
            if (substr($text, $i, 2) eq "/*") { push @stack, "block"; $i += 2; next; }
            $i++; next;
        }
        # Inside a string literal.
        my $hashes = "#" x $raw;
        if ($c eq "\\" && substr($text, $i + 1, length($hashes) + 1) eq $hashes . "(") {
            push @stack, "code"; push @parens, 0; $out[-1] .= "(";
            $i += length($hashes) + 2; next;
        }
        if ($c eq "\\" && $raw == 0) { $i += 2; next; }
        my $close = ($state eq "mstring" ? q{"""} : q{"}) . $hashes;
        if (substr($text, $i, length $close) eq $close) {
            pop @stack; $out[-1] .= q{"}; $i += length $close; next;
        }
        $i++;
    }
    return @out;
}

my @kinds = (
    [qr/\btry!/, "try!"],
    [qr/\bas!/, "as!"],
    [qr/\.unsafelyUnwrapped\b/, "unsafelyUnwrapped"],
    [qr/\bfatalError\s*\(/, "fatalError"],
    [qr/\bpreconditionFailure\s*\(/, "preconditionFailure"],
    [qr/\bprecondition\s*\(/, "precondition"],
    [qr/\bassertionFailure\s*\(/, "assertionFailure"],
    [qr/\bassert\s*\(/, "assert"],
    # A postfix ! after a name, a call, a subscript or a generic type; not != and not the
    # try!/as! above.
    [qr/(?<!\btry)(?<!\bas)(?<=[A-Za-z0-9_)\]}>])!(?!=)/, "force unwrap"],
);

my @entries;
if (open my $fh, "<", $allowlist) {
    while (my $line = <$fh>) {
        chomp $line;
        next if $line =~ /^\s*(#|$)/;
        my ($spec, $reason) = split /\s+#\s*/, $line, 2;
        $spec =~ s/\s+$//;
        my ($path, $snippet) = $spec =~ /^([^:]+):(.*)$/ or die "$allowlist: malformed entry: $line\n";
        die "$allowlist: entry without a reason (path:snippet  # reason): $line\n" unless defined $reason && $reason =~ /\S/;
        # A `*` in the path matches within one folder (`Sources/Container/Coordinator/*.swift`).
        my $pattern = join "[^/]*", map { quotemeta } split /\*/, $path, -1;
        push @entries, { pattern => qr/^$pattern$/, snippet => $snippet, used => 0, line => $line };
    }
}

my ($hits, $unreviewed) = (0, 0);
while (my $file = <STDIN>) {
    chomp $file;
    open my $in, "<", $file or die "$file: $!\n";
    local $/;
    my $text = <$in>;
    my @lines = code_lines($text);
    for my $number (0 .. $#lines) {
        my $code = $lines[$number];
        for my $kind (@kinds) {
            my ($pattern, $name) = @$kind;
            next unless $code =~ $pattern;
            $hits++;
            my $allowed = 0;
            for my $entry (@entries) {
                next unless $file =~ $entry->{pattern};
                if ($entry->{snippet} eq "*" || index($code, $entry->{snippet}) >= 0) {
                    $entry->{used}++; $allowed = 1;
                }
            }
            (my $shown = $code) =~ s/^\s+//;
            if ($mode eq "--list") {
                printf "%s:%d: %s: %s%s\n", $file, $number + 1, $name, $shown, $allowed ? "" : "   <-- not allowlisted";
            }
            if (!$allowed) {
                printf STDERR "%s:%d: %s: %s\n", $file, $number + 1, $name, $shown if $mode ne "--list";
                $unreviewed++;
            }
            last;
        }
    }
}

for my $entry (@entries) {
    print STDERR "audit-crashes: stale allowlist entry (matches nothing): $entry->{line}\n" unless $entry->{used};
}
if ($mode eq "--list") {
    print "audit-crashes: $hits hit(s), $unreviewed not allowlisted\n";
    exit 0;
}
if ($unreviewed) {
    print STDERR "\naudit-crashes: $unreviewed hit(s) above can crash the process and are not reviewed.\n";
    print STDERR "Input (config, plugin, caller) must get an error, never a crash: throw one instead.\n";
    print STDERR "A true internal invariant goes into $allowlist as `path:snippet  # reason`.\n";
    exit 1;
}
print "audit-crashes: $hits hit(s) in Sources, all reviewed ($allowlist)\n";
' -- "$mode" "$allowlist"
