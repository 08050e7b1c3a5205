package proc

import (
	"slices"
	"testing"
)

func TestEnv(t *testing.T) {
	const key = "sk-live-0123456789"
	parent := []string{
		"HOME=/home/me",
		"WEFT_LLM_API_KEY=" + key,
		"OPENAI_API_KEY=" + key, // the same key under another name
		"PADDED= " + key + " ",
		"GITHUB_TOKEN=ghp_from_shell", // the user's own, not Weft's
		"WEFT_SERVICE_TOKEN=abc",
		"WEFT_KEYRING=off",
		"WEFT_LLM_MODEL=llama3",
		"MCP_TOKEN=old",
		"=C:=C:\\x",
		"junk",
		"EMPTY=",
	}
	cases := []struct {
		name    string
		secrets []string
		set     map[string]string
		want    []string
	}{
		{"no configured secrets", nil, nil, []string{
			"HOME=/home/me", "OPENAI_API_KEY=" + key, "PADDED= " + key + " ", "GITHUB_TOKEN=ghp_from_shell",
			"WEFT_KEYRING=off", "WEFT_LLM_MODEL=llama3", "MCP_TOKEN=old", "EMPTY="}},
		{"the key under any name", []string{key}, nil, []string{
			"HOME=/home/me", "GITHUB_TOKEN=ghp_from_shell", "WEFT_KEYRING=off", "WEFT_LLM_MODEL=llama3", "MCP_TOKEN=old", "EMPTY="}},
		{"configured env wins and may carry a secret", []string{key, "ghp_from_shell"}, map[string]string{"MCP_TOKEN": "new", "OPENAI_API_KEY": key}, []string{
			"HOME=/home/me", "WEFT_KEYRING=off", "WEFT_LLM_MODEL=llama3", "EMPTY=", "MCP_TOKEN=new", "OPENAI_API_KEY=" + key}},
		{"empty secret drops nothing extra", []string{""}, nil, []string{
			"HOME=/home/me", "OPENAI_API_KEY=" + key, "PADDED= " + key + " ", "GITHUB_TOKEN=ghp_from_shell",
			"WEFT_KEYRING=off", "WEFT_LLM_MODEL=llama3", "MCP_TOKEN=old", "EMPTY="}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Env(parent, tc.secrets, tc.set)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Env =\n %q\nwant\n %q", got, tc.want)
			}
		})
	}
}
