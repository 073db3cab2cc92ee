// SPDX-License-Identifier: Apache-2.0

// c2sp-verify checks the receipt log's checkpoints and proofs with Go's
// own golang.org/x/mod/sumdb/note (the signatures) and sumdb/tlog (the
// Merkle proofs), from Debian's golang-golang-x-mod-dev, and none of our
// code: what a reviewer outside the lab would run.
//
//	c2sp-verify checkpoint VKEY CHECKPOINT...
//	c2sp-verify inclusion VKEY ENTRIES TLOG_PROOF...
//	c2sp-verify consistency VKEY (OLD_CHECKPOINT NEW_CHECKPOINT PROOF_JSON)...
//	c2sp-verify cosigned VKEY WITNESS_VKEY CHECKPOINT...
//	c2sp-verify dump FILE
//
// VKEY is the log's verifier key (replicate log vkey). ENTRIES is the log's
// entries.jsonl: a tlog-proof of index N proves line N+1 (without its
// newline), the leaf's data. PROOF_JSON is what replicate log consistency
// --json prints; only its "proof" (hex hashes) is read, the sizes and roots
// come from the two checkpoints. FILE is what tests/lib/merkle-dump N
// prints (every root, inclusion path and consistency proof of the leaves
// "leaf-0"... for every tree size to N): the roots are recomputed with
// tlog.StoredHashes and tlog.TreeHash, the proofs checked with
// tlog.CheckRecord and tlog.CheckTree. WITNESS_VKEY is a replica's key as
// c2sp.org/tlog-cosignature writes it (NAME+KEYID+base64(0x04 || key)),
// which note.NewVerifier does not read: its cosignature/v1 is checked here
// with crypto/ed25519 inside note.Open, and a cosigned checkpoint holds
// when both the log's signature and the witness's verify.
// Each file that holds prints "ok: FILE";
// the first that does not prints "FILE: why" on stderr and exits 1; usage
// exits 2.
package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type checkpoint struct {
	size int64
	root tlog.Hash
}

// openCheckpoint verifies msg's signature by v and reads its three lines
// (c2sp.org/tlog-checkpoint): the origin, which must be v's name, the tree
// size and the base64 root hash.
func openCheckpoint(v note.Verifier, msg []byte) (checkpoint, error) {
	var cp checkpoint
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return cp, err
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) != 4 || lines[3] != "" {
		return cp, fmt.Errorf("expected origin, size and root hash, found %d lines of note text", len(lines)-1)
	}
	if lines[0] != v.Name() {
		return cp, fmt.Errorf("origin %q, but the key is %q's", lines[0], v.Name())
	}
	cp.size, err = strconv.ParseInt(lines[1], 10, 64)
	if err != nil || cp.size < 0 || strconv.FormatInt(cp.size, 10) != lines[1] {
		return cp, fmt.Errorf("tree size %q is not a decimal", lines[1])
	}
	raw, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(raw) != tlog.HashSize {
		return cp, fmt.Errorf("root hash %q is not base64 of %d bytes", lines[2], tlog.HashSize)
	}
	copy(cp.root[:], raw)
	return cp, nil
}

func parseHash(text string, decode func(string) ([]byte, error)) (tlog.Hash, error) {
	var h tlog.Hash
	raw, err := decode(text)
	if err != nil || len(raw) != tlog.HashSize {
		return h, fmt.Errorf("%q is not a hash", text)
	}
	copy(h[:], raw)
	return h, nil
}

// inclusion checks one c2sp.org/tlog-proof against the entries' line it
// names.
func inclusion(v note.Verifier, entries [][]byte, proof []byte) error {
	head, cpText, found := bytes.Cut(proof, []byte("\n\n"))
	if !found {
		return fmt.Errorf("no blank line before the checkpoint")
	}
	lines := strings.Split(string(head), "\n")
	if len(lines) < 2 || lines[0] != "c2sp.org/tlog-proof@v1" || !strings.HasPrefix(lines[1], "index ") {
		return fmt.Errorf("expected c2sp.org/tlog-proof@v1 and an index line")
	}
	index, err := strconv.ParseInt(strings.TrimPrefix(lines[1], "index "), 10, 64)
	if err != nil || index < 0 || index >= int64(len(entries)) {
		return fmt.Errorf("index %q names no line of the entries", lines[1])
	}
	var path tlog.RecordProof
	for _, l := range lines[2:] {
		h, err := parseHash(l, base64.StdEncoding.DecodeString)
		if err != nil {
			return err
		}
		path = append(path, h)
	}
	cp, err := openCheckpoint(v, cpText)
	if err != nil {
		return fmt.Errorf("checkpoint: %v", err)
	}
	if err := tlog.CheckRecord(path, cp.size, cp.root, index, tlog.RecordHash(entries[index])); err != nil {
		return fmt.Errorf("entry %d in the tree of size %d: %v", index, cp.size, err)
	}
	return nil
}

func consistency(v note.Verifier, oldFile, newFile, proofFile string) error {
	var cps [2]checkpoint
	for i, f := range []string{oldFile, newFile} {
		msg, err := os.ReadFile(f)
		if err == nil {
			cps[i], err = openCheckpoint(v, msg)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
	}
	raw, err := os.ReadFile(proofFile)
	if err != nil {
		return err
	}
	var doc struct{ Proof []string }
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	var proof tlog.TreeProof
	for _, s := range doc.Proof {
		h, err := parseHash(s, hex.DecodeString)
		if err != nil {
			return err
		}
		proof = append(proof, h)
	}
	return tlog.CheckTree(proof, cps[1].size, cps[1].root, cps[0].size, cps[0].root)
}

// cosigner is a witness's key: tlog-cosignature's timestamped Ed25519.
type cosigner struct {
	name string
	hash uint32
	key  ed25519.PublicKey
}

func (c cosigner) Name() string    { return c.name }
func (c cosigner) KeyHash() uint32 { return c.hash }

// Verify checks cosignature/v1: "cosignature/v1\ntime T\n" and the note
// text, signed; sig is the big-endian u64 T and the Ed25519 signature.
func (c cosigner) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	m := append([]byte(fmt.Sprintf("cosignature/v1\ntime %d\n", binary.BigEndian.Uint64(sig[:8]))), msg...)
	return ed25519.Verify(c.key, m, sig[8:])
}

func newCosigner(vkey string) (cosigner, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return cosigner{}, fmt.Errorf("%q is not NAME+KEYID+KEY", vkey)
	}
	hash, err1 := strconv.ParseUint(parts[1], 16, 32)
	raw, err2 := base64.StdEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || len(raw) != 1+ed25519.PublicKeySize || raw[0] != 0x04 {
		return cosigner{}, fmt.Errorf("%q is not a cosigner's key (type 0x04, Ed25519)", vkey)
	}
	sum := sha256.Sum256(append([]byte(parts[0]+"\n"), raw...))
	if binary.BigEndian.Uint32(sum[:4]) != uint32(hash) {
		return cosigner{}, fmt.Errorf("%q: its key ID is not SHA-256(name, 0x0A, 0x04, key)'s", vkey)
	}
	return cosigner{parts[0], uint32(hash), ed25519.PublicKey(raw[1:])}, nil
}

// cosigned checks that both the log and the witness signed msg.
func cosigned(v note.Verifier, c cosigner, msg []byte) error {
	n, err := note.Open(msg, note.VerifierList(v, c))
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, s := range n.Sigs {
		seen[s.Name] = true
	}
	if !seen[v.Name()] || !seen[c.name] {
		return fmt.Errorf("not signed by both %s and %s", v.Name(), c.name)
	}
	_, err = openCheckpoint(v, msg)
	return err
}

// hashList reads merkle-dump's comma-separated hex hashes.
func hashList(text string) ([]tlog.Hash, error) {
	var list []tlog.Hash
	for _, s := range strings.Split(text, ",") {
		if s == "" {
			continue
		}
		h, err := parseHash(s, hex.DecodeString)
		if err != nil {
			return nil, err
		}
		list = append(list, h)
	}
	return list, nil
}

type hashStore []tlog.Hash

func (s *hashStore) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		out[i] = (*s)[x]
	}
	return out, nil
}

// dump holds every line of merkle-dump's output to Go's tlog.
func dump(file string) (string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var store hashStore
	roots := map[int64]tlog.Hash{}
	var nroot, nincl, ncons int
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		f := strings.SplitN(line, " ", 4)
		a, _ := strconv.ParseInt(f[1], 10, 64)
		b, _ := strconv.ParseInt(f[2], 10, 64)
		switch f[0] {
		case "root":
			for int64(len(roots)) < a { // the leaves up to this size, stored as tlog stores them
				n := int64(len(roots))
				hs, err := tlog.StoredHashes(n, []byte(fmt.Sprintf("leaf-%d", n)), &store)
				if err != nil {
					return "", err
				}
				store = append(store, hs...)
				roots[n+1], err = tlog.TreeHash(n+1, &store)
				if err != nil {
					return "", err
				}
			}
			h, err := parseHash(f[2], hex.DecodeString)
			if want := roots[a]; err != nil || h != want {
				return "", fmt.Errorf("%s: tlog.TreeHash is %s", line, hex.EncodeToString(want[:]))
			}
			nroot++
		case "incl":
			p, err := hashList(f[3])
			if err == nil {
				err = tlog.CheckRecord(p, a, roots[a], b, tlog.RecordHash([]byte(fmt.Sprintf("leaf-%d", b))))
			}
			if err != nil {
				return "", fmt.Errorf("%s: %v", line, err)
			}
			nincl++
		case "cons":
			p, err := hashList(f[3])
			if err == nil {
				err = tlog.CheckTree(p, b, roots[b], a, roots[a])
			}
			if err != nil {
				return "", fmt.Errorf("%s: %v", line, err)
			}
			ncons++
		default:
			return "", fmt.Errorf("%q: not a merkle-dump line", line)
		}
	}
	return fmt.Sprintf("%d roots, %d inclusion paths, %d consistency proofs agree", nroot, nincl, ncons), nil
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "dump" {
		agree, err := dump(os.Args[2])
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[2], err)
			os.Exit(1)
		}
		fmt.Println(agree)
		return
	}
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: c2sp-verify (checkpoint VKEY FILE... | cosigned VKEY WITNESS_VKEY FILE... | inclusion VKEY ENTRIES PROOF... | consistency VKEY (OLD NEW PROOF_JSON)... | dump FILE)")
		os.Exit(2)
	}
	v, err := note.NewVerifier(os.Args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "c2sp-verify: verifier key: %v\n", err)
		os.Exit(2)
	}
	fail := func(file string, err error) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
		os.Exit(1)
	}
	switch os.Args[1] {
	case "checkpoint":
		for _, f := range os.Args[3:] {
			msg, err := os.ReadFile(f)
			if err == nil {
				_, err = openCheckpoint(v, msg)
			}
			if err != nil {
				fail(f, err)
			}
			fmt.Printf("ok: %s\n", f)
		}
	case "cosigned":
		c, err := newCosigner(os.Args[3])
		if err != nil {
			fmt.Fprintf(os.Stderr, "c2sp-verify: witness key: %v\n", err)
			os.Exit(2)
		}
		for _, f := range os.Args[4:] {
			msg, err := os.ReadFile(f)
			if err == nil {
				err = cosigned(v, c, msg)
			}
			if err != nil {
				fail(f, err)
			}
			fmt.Printf("ok: %s\n", f)
		}
	case "inclusion":
		raw, err := os.ReadFile(os.Args[3])
		if err != nil {
			fail(os.Args[3], err)
		}
		entries := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
		for _, f := range os.Args[4:] {
			proof, err := os.ReadFile(f)
			if err == nil {
				err = inclusion(v, entries, proof)
			}
			if err != nil {
				fail(f, err)
			}
			fmt.Printf("ok: %s\n", f)
		}
	case "consistency":
		if (len(os.Args)-3)%3 != 0 {
			fmt.Fprintln(os.Stderr, "usage: c2sp-verify consistency VKEY (OLD NEW PROOF_JSON)...")
			os.Exit(2)
		}
		for a := os.Args[3:]; len(a) > 0; a = a[3:] {
			if err := consistency(v, a[0], a[1], a[2]); err != nil {
				fail(a[2], err)
			}
			fmt.Printf("ok: %s\n", a[2])
		}
	default:
		fmt.Fprintf(os.Stderr, "c2sp-verify: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}
