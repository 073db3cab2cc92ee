// qf-pair: a real QuickFIX session on loopback, as the audit test needs it.
//
//   qf-pair DIR PORT ORDERS FIX44.xml
//
// An acceptor (ACPT) and an initiator (INIT) in one process, FIX.4.4, each
// with a FileStore and a FileLog under DIR/acceptor and DIR/initiator, both
// validating with the dictionary given (QuickFIX's own FIX44.xml). The
// initiator logs on, sends ORDERS NewOrderSingles (ClOrdID 1, 2, ...; two
// parties), waits until the acceptor has received every one, and logs out.
// What QuickFIX wrote is left for `audit journal` to read. Exit 0 when the
// acceptor saw every order, 1 when not (in 30 seconds), 2 on setup errors.
#include <quickfix/Application.h>
#include <quickfix/FileLog.h>
#include <quickfix/FileStore.h>
#include <quickfix/MessageCracker.h>
#include <quickfix/Session.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketAcceptor.h>
#include <quickfix/SocketInitiator.h>
#include <quickfix/fix44/NewOrderSingle.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>

namespace {

std::atomic<int> logged_on{0}, received{0}, logged_out{0};

class Endpoint : public FIX::Application {
public:
	explicit Endpoint(bool acceptor) : acceptor_(acceptor) {}
	void onCreate(const FIX::SessionID &) override {}
	void onLogon(const FIX::SessionID &) override { logged_on++; }
	void onLogout(const FIX::SessionID &) override { logged_out++; }
	void toAdmin(FIX::Message &, const FIX::SessionID &) override {}
	// Debian's QuickFIX 1.15 declares dynamic exception specifications,
	// which C++11 still accepts (and C++17 refuses).
	void toApp(FIX::Message &, const FIX::SessionID &) throw(FIX::DoNotSend) override {}
	void fromAdmin(const FIX::Message &, const FIX::SessionID &) throw(
		FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
		FIX::RejectLogon) override
	{
	}
	void fromApp(const FIX::Message &message, const FIX::SessionID &) throw(
		FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
		FIX::UnsupportedMessageType) override
	{
		FIX::MsgType type;
		message.getHeader().getField(type);
		if (acceptor_ && type == FIX::MsgType_NewOrderSingle)
			received++;
	}

private:
	bool acceptor_;
};

std::string settings(const std::string &dir, const std::string &port, const std::string &dict,
		     bool acceptor)
{
	std::ostringstream s;
	s << "[DEFAULT]\n"
	  << "FileStorePath=" << dir << "/store\n"
	  << "FileLogPath=" << dir << "/log\n"
	  << "StartTime=00:00:00\nEndTime=00:00:00\n"
	  << "UseDataDictionary=Y\nDataDictionary=" << dict << "\n"
	  << "HeartBtInt=30\n"
	  << "ReconnectInterval=1\n"
	  << "[SESSION]\nBeginString=FIX.4.4\n";
	if (acceptor)
		s << "ConnectionType=acceptor\nSenderCompID=ACPT\nTargetCompID=INIT\n"
		  << "SocketAcceptPort=" << port << "\nSocketReuseAddress=Y\n";
	else
		s << "ConnectionType=initiator\nSenderCompID=INIT\nTargetCompID=ACPT\n"
		  << "SocketConnectHost=127.0.0.1\nSocketConnectPort=" << port << "\n";
	return s.str();
}

FIX44::NewOrderSingle order(int n)
{
	FIX44::NewOrderSingle o(FIX::ClOrdID(std::to_string(n)), FIX::Side(FIX::Side_BUY),
				FIX::TransactTime(), FIX::OrdType(FIX::OrdType_LIMIT));
	o.set(FIX::Symbol("NOKIA.HE"));
	o.set(FIX::OrderQty(10));
	o.set(FIX::Price(10000));
	o.set(FIX::TimeInForce(FIX::TimeInForce_DAY));
	const char *ids[2] = {"PARTY1", "PARTY2"};
	const int roles[2] = {1, 3};
	for (int k = 0; k < 2; k++) {
		FIX44::NewOrderSingle::NoPartyIDs party;
		party.set(FIX::PartyID(ids[k]));
		party.set(FIX::PartyIDSource('D'));
		party.set(FIX::PartyRole(roles[k]));
		o.addGroup(party);
	}
	return o;
}

bool wait_for(const std::atomic<int> &v, int want)
{
	for (int i = 0; i < 3000 && v.load() < want; i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	return v.load() >= want;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 5) {
		std::fprintf(stderr, "usage: qf-pair DIR PORT ORDERS FIX44.xml\n");
		return 2;
	}
	std::string dir = argv[1], port = argv[2], dict = argv[4];
	int orders = std::atoi(argv[3]);
	try {
		std::istringstream as(settings(dir + "/acceptor", port, dict, true)),
			is(settings(dir + "/initiator", port, dict, false));
		FIX::SessionSettings aset(as), iset(is);
		Endpoint a(true), i(false);
		FIX::FileStoreFactory astore(aset), istore(iset);
		FIX::FileLogFactory alog(aset), ilog(iset);
		FIX::SocketAcceptor acceptor(a, astore, aset, alog);
		FIX::SocketInitiator initiator(i, istore, iset, ilog);
		acceptor.start();
		initiator.start();
		if (!wait_for(logged_on, 2)) {
			std::fprintf(stderr, "qf-pair: no logon within 30 s\n");
			return 1;
		}
		FIX::SessionID id("FIX.4.4", "INIT", "ACPT");
		for (int n = 1; n <= orders; n++) {
			FIX44::NewOrderSingle o = order(n);
			FIX::Session::sendToTarget(o, id);
		}
		bool all = wait_for(received, orders);
		initiator.stop();
		acceptor.stop();
		if (!all) {
			std::fprintf(stderr, "qf-pair: the acceptor received %d of %d orders\n", received.load(),
				     orders);
			return 1;
		}
	} catch (const std::exception &e) {
		std::fprintf(stderr, "qf-pair: %s\n", e.what());
		return 2;
	}
	return 0;
}
