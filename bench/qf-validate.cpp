/* SPDX-License-Identifier: Apache-2.0 */
// qf-validate: what a user would write with QuickFIX to check journals: read
// every record of llfix journal directories (N.bin) and parse and validate
// each message with QuickFIX's own FIX::Message and DataDictionary (the
// FIXT11.xml session and FIX50.xml application dictionaries, as audit
// uses): BodyLength, CheckSum, required fields, tags of the type, values,
// formats and groups, then check MsgSeqNum continuity. Single-threaded.
// For bench/audit-journal only.
//
//   qf-validate FIXT11.xml FIX50.xml DIR...
//
// Prints "messages N invalid N seconds S" for the parse loop alone.
#include <quickfix/DataDictionary.h>
#include <quickfix/Message.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

static std::vector<char> slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		std::fprintf(stderr, "usage: qf-validate FIXT11.xml FIX50.xml DIR...\n");
		return 2;
	}
	FIX::DataDictionary session(argv[1]), app(argv[2]);
	uint64_t messages = 0, invalid = 0;
	double seconds = 0;
	for (int d = 3; d < argc; d++) {
		int expected_seq = 1;
		for (int n = 1;; n++) {
			std::string path = std::string(argv[d]) + "/" + std::to_string(n) + ".bin";
			std::vector<char> file = slurp(path);
			if (file.size() < 8)
				break;
			auto t0 = std::chrono::steady_clock::now();
			uint64_t count;
			std::memcpy(&count, file.data(), 8);
			size_t p = 8;
			for (uint64_t r = 0; r < count && p + 17 <= file.size(); r++) {
				uint64_t len;
				std::memcpy(&len, file.data() + p + 9, 8);
				std::string raw(file.data() + p + 17, len);
				p += 17 + len;
				messages++;
				try {
					FIX::Message m(raw, session, app, true);
					// Session messages (Logon, Logout) are the
					// transport dictionary's own.
					FIX::DataDictionary::validate(m, &session, m.isAdmin() ? &session : &app);
					FIX::MsgSeqNum seq;
					m.getHeader().getField(seq);
					if (seq != expected_seq)
						invalid++;
					expected_seq = seq + 1;
				} catch (const std::exception &) {
					invalid++;
				}
			}
			seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		}
	}
	std::printf("messages %llu invalid %llu seconds %.3f\n", (unsigned long long)messages,
		    (unsigned long long)invalid, seconds);
	return 0;
}
