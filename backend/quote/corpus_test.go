package quote

// hostile are values that would be code if spliced into a command or URL
// unquoted: command substitution, separators, quotes of every kind, line
// breaks, globs, expansions of sh and cmd.exe, and plain text for
// contrast. None has a NUL byte (see TestNUL).
var hostile = []string{
	"", "plain", "two words", " leading and trailing ", "\t",
	"$(touch MARK)", "`touch MARK`", "a; touch MARK", "a && touch MARK", "a || touch MARK",
	"a | touch MARK", "a & touch MARK", "> MARK", "< /etc/passwd", "a\ntouch MARK", "a\r\ntouch MARK",
	"\n", "\r\n", "x\n", "\ntouch MARK\n",
	"it's", "'", "''", "'''", `"`, `""`, `"; touch MARK; "`, `'; touch MARK; '`, `'"$(touch MARK)"'`,
	`\`, `\\`, `a\`, `\'`, `\"`, "\\\n", `'\''`, `\$(touch MARK)`,
	"*", "?", "[a-z]*", "/*", "~", "~root", "{a,b}", "$HOME", "${HOME}", "$((1+1))", "$'\\x41'", "$\"x\"",
	"#", "#comment", "a #b", "!", "!!", "!$", "%PATH%", "%", "%%", "^", "^^", "&", "|", "<", ">", "(", ")", "{", "}",
	"-rf", "--", "-", "=", "a=b", "é ✓ 日本語", "\x01\x1b[31m\x7f", "<<EOF", "EOF", "$", "$$", "$#",
	"a\"b'c`d$e\\f", "%~dp0", "^\"&calc^\"", `" & calc & "`, "\\\\server\\share",
	"a[$(touch MARK)]", "x[`touch MARK`]", "1+a[$(touch MARK)]",
}
