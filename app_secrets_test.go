package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSecretsBindingsNeverReturnAValue(t *testing.T) {
	a, _ := testApp(t)
	t.Setenv("WEFT_KEYRING", "off")
	const value = "sk-appSecretsTest-0123456789"
	if err := a.SetSecret("API_KEY", value, []string{"api.example.com"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.SetSecret("bad name", value, nil, nil); err == nil {
		t.Fatal("bad name accepted")
	}
	if err := a.SetSecretBindings("API_KEY", []string{"*.example.com"}, []string{"run_command"}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetSecretBindings("MISSING", nil, nil); err == nil {
		t.Fatal("bindings for a secret that is not stored")
	}
	v, err := a.ListSecrets()
	if err != nil || len(v.Secrets) != 1 || v.Secrets[0].Stored != "file" || v.Secrets[0].Hosts[0] != "*.example.com" || v.Secrets[0].Tools[0] != "run_command" {
		t.Fatalf("ListSecrets = %+v, %v", v, err)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), value) {
		t.Fatalf("the list carries the value: %s", b)
	}
	if err := a.RemoveSecret("API_KEY"); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.ListSecrets(); len(v.Secrets) != 0 {
		t.Fatalf("after remove: %+v", v)
	}
}
