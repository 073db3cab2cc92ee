/* SPDX-License-Identifier: Apache-2.0 */
// qf-session: one endpoint of a real QuickFIX FIX.4.4 session per process,
// so that a test can stop, freeze and kill the other one mid-session and
// the session recovers as QuickFIX recovers it (ResendRequest, PossDupFlag
// resends, SequenceReset-GapFill, TestRequest, Reject).
//
//   qf-session acceptor DIR PORT FIX44.xml
//   qf-session initiator DIR PORT FIX44.xml STEP...
//
// Both persist with FileStore and FileLog under DIR (store/, log/) and
// validate with the dictionary given; HeartBtInt is 2 seconds (QuickFIX checks
// its timers once a second: at 1 it may time out before it sends a TestRequest). The acceptor
// (ACPT) runs until the initiator (INIT) logs out, or until SIGTERM. It
// writes DIR/received: the orders it has accepted, rewritten on each one.
// The initiator runs its steps in order:
//   logon          wait (30 s at most) until logged on
//   send:N         send N NewOrderSingles (ClOrdID counting from 1 across steps)
//   send-bad       send one order whose Side (54) is 'Z': the acceptor rejects it
//   first-order:N  the next ClOrdID is N (a second process going on with the orders)
//   wait-down      wait until the session is disconnected
//   wait-file:NAME wait until DIR/NAME exists (the test creates it)
//   touch:NAME     create DIR/NAME
//   sleep:MS       sleep
//   logout         log out and wait for the session to end
//   cancel:N       send an OrderCancelRequest for order N (ClOrdID cN, OrigClOrdID N)
//   replace:N      send an OrderCancelReplaceRequest for order N to quantity 20 (ClOrdID rN)
//   wait-reports:N wait (30 s at most) until N ExecutionReports and OrderCancelRejects arrived
// With QF_RESET_ON_LOGON=Y in its environment the initiator logs on with
// ResetSeqNumFlag (141=Y), and both sides start again at MsgSeqNum 1.
// With QF_EXECUTOR in its environment the acceptor answers orders as
// QuickFIX's executor example does, in steps: "fill" answers each
// NewOrderSingle with New, a fill of 4 at the order's price and a fill of 6
// at one more (AvgPx the weighted average); "rest" answers New only, and
// cancels (Pending Cancel, Canceled) or replaces (Pending Replace, Replaced)
// a resting order on request; a request for an order already filled gets
// an OrderCancelReject. QF_EXECUTOR_SKIP=N leaves order N unanswered.
// Exit 0 when every step ran, 1 when one timed out, 2 on setup errors.
#include <quickfix/Application.h>
#include <quickfix/FileLog.h>
#include <quickfix/FileStore.h>
#include <quickfix/Session.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketAcceptor.h>
#include <quickfix/SocketInitiator.h>
#include <quickfix/fix44/ExecutionReport.h>
#include <quickfix/fix44/NewOrderSingle.h>
#include <quickfix/fix44/OrderCancelReject.h>
#include <quickfix/fix44/OrderCancelReplaceRequest.h>
#include <quickfix/fix44/OrderCancelRequest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

std::atomic<int> logged_on{0}, received{0}, logged_out{0}, reports{0};
std::atomic<bool> up{false}, stop_requested{false};
std::string dir;

class Endpoint : public FIX::Application {
public:
	explicit Endpoint(bool acceptor) : acceptor_(acceptor) {}
	void onCreate(const FIX::SessionID &) override {}
	void onLogon(const FIX::SessionID &) override
	{
		logged_on++;
		up = true;
	}
	void onLogout(const FIX::SessionID &) override
	{
		logged_out++;
		up = false;
	}
	void toAdmin(FIX::Message &, const FIX::SessionID &) override {}
	// Debian's QuickFIX 1.15 declares dynamic exception specifications,
	// which C++11 still accepts (and C++17 refuses).
	void toApp(FIX::Message &, const FIX::SessionID &) throw(FIX::DoNotSend) override {}
	void fromAdmin(const FIX::Message &, const FIX::SessionID &) throw(
		FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
		FIX::RejectLogon) override
	{
	}
	void fromApp(const FIX::Message &message, const FIX::SessionID &id) throw(
		FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
		FIX::UnsupportedMessageType) override
	{
		FIX::MsgType type;
		message.getHeader().getField(type);
		if (!acceptor_ && (type == FIX::MsgType_ExecutionReport || type == FIX::MsgType_OrderCancelReject))
			reports++;
		if (acceptor_ && type == FIX::MsgType_NewOrderSingle) {
			int n = ++received;
			std::ofstream(dir + "/received.tmp") << n << "\n";
			std::rename((dir + "/received.tmp").c_str(), (dir + "/received").c_str());
		}
		const char *mode = std::getenv("QF_EXECUTOR");
		if (acceptor_ && mode)
			execute(message, type, mode, id);
	}

private:
	struct Resting {
		double qty, cum, price;
		char side;
		bool done;
	};

	void report(const std::string &clordid, const std::string &orig, char exec_type, char status, const Resting &o,
		    double last_qty, double last_px, double avg_px, const FIX::SessionID &id)
	{
		FIX44::ExecutionReport er(FIX::OrderID("O" + orig), FIX::ExecID("E" + std::to_string(++execs_)),
					  FIX::ExecType(exec_type), FIX::OrdStatus(status), FIX::Side(o.side),
					  FIX::LeavesQty(o.done ? 0 : o.qty - o.cum), FIX::CumQty(o.cum), FIX::AvgPx(avg_px));
		er.set(FIX::ClOrdID(clordid));
		if (clordid != orig)
			er.set(FIX::OrigClOrdID(orig));
		er.set(FIX::Symbol("NOKIA.HE"));
		er.set(FIX::OrderQty(o.qty));
		if (last_qty > 0) {
			er.set(FIX::LastQty(last_qty));
			er.set(FIX::LastPx(last_px));
		}
		FIX::Session::sendToTarget(er, id);
	}

	void execute(const FIX::Message &message, const FIX::MsgType &type, const std::string &mode,
		     const FIX::SessionID &id)
	{
		FIX::ClOrdID clordid;
		message.getField(clordid);
		FIX::SessionID reply(id.getBeginString(), id.getSenderCompID(), id.getTargetCompID());
		if (type == FIX::MsgType_NewOrderSingle) {
			const char *skip = std::getenv("QF_EXECUTOR_SKIP");
			if (skip && clordid.getValue() == skip)
				return;
			FIX::OrderQty qty;
			FIX::Price price;
			FIX::Side side;
			message.getField(qty);
			message.getField(price);
			message.getField(side);
			Resting o{qty.getValue(), 0, price.getValue(), side.getValue(), false};
			const std::string &c = clordid.getValue();
			report(c, c, FIX::ExecType_NEW, FIX::OrdStatus_NEW, o, 0, 0, 0, reply);
			if (mode == "fill") {
				o.cum = 4;
				report(c, c, FIX::ExecType_TRADE, FIX::OrdStatus_PARTIALLY_FILLED, o, 4, o.price, o.price,
				       reply);
				o.cum = o.qty;
				double avg = (4 * o.price + (o.qty - 4) * (o.price + 1)) / o.qty;
				report(c, c, FIX::ExecType_TRADE, FIX::OrdStatus_FILLED, o, o.qty - 4, o.price + 1, avg, reply);
				o.done = true;
			}
			book_[c] = o;
			return;
		}
		FIX::OrigClOrdID orig;
		message.getField(orig);
		auto it = book_.find(orig.getValue());
		if (it == book_.end() || it->second.done) {
			FIX44::OrderCancelReject rej(FIX::OrderID("O" + orig.getValue()), clordid, orig,
						     FIX::OrdStatus(FIX::OrdStatus_FILLED),
						     FIX::CxlRejResponseTo(type == FIX::MsgType_OrderCancelRequest ? '1' : '2'));
			FIX::Session::sendToTarget(rej, reply);
			return;
		}
		Resting o = it->second;
		const std::string &c = clordid.getValue();
		if (type == FIX::MsgType_OrderCancelRequest) {
			report(c, orig.getValue(), FIX::ExecType_PENDING_CANCEL, FIX::OrdStatus_PENDING_CANCEL, o, 0, 0, 0, reply);
			o.done = true;
			report(c, orig.getValue(), FIX::ExecType_CANCELED, FIX::OrdStatus_CANCELED, o, 0, 0, 0, reply);
		} else {
			report(c, orig.getValue(), FIX::ExecType_PENDING_REPLACE, FIX::OrdStatus_PENDING_REPLACE, o, 0, 0, 0,
			       reply);
			FIX::OrderQty qty;
			message.getField(qty);
			o.qty = qty.getValue();
			report(c, orig.getValue(), FIX::ExecType_REPLACED, FIX::OrdStatus_NEW, o, 0, 0, 0, reply);
		}
		book_.erase(it);
		book_[c] = o;
	}

	bool acceptor_;
	int execs_ = 0;
	std::map<std::string, Resting> book_;
};

std::string settings(const std::string &port, const std::string &dict, bool acceptor)
{
	std::ostringstream s;
	s << "[DEFAULT]\n"
	  << "FileStorePath=" << dir << "/store\n"
	  << "FileLogPath=" << dir << "/log\n"
	  << "StartTime=00:00:00\nEndTime=00:00:00\n"
	  << "UseDataDictionary=Y\nDataDictionary=" << dict << "\n"
	  << "HeartBtInt=2\n"
	  << "ReconnectInterval=1\n"
	  << "[SESSION]\nBeginString=FIX.4.4\n";
	if (acceptor)
		s << "ConnectionType=acceptor\nSenderCompID=ACPT\nTargetCompID=INIT\n"
		  << "SocketAcceptPort=" << port << "\nSocketReuseAddress=Y\n";
	else
		s << "ConnectionType=initiator\nSenderCompID=INIT\nTargetCompID=ACPT\n"
		  << "SocketConnectHost=127.0.0.1\nSocketConnectPort=" << port << "\n";
	const char *reset = std::getenv("QF_RESET_ON_LOGON");
	if (!acceptor && reset && std::string(reset) == "Y")
		s << "ResetOnLogon=Y\n";
	return s.str();
}

FIX44::NewOrderSingle order(int n, char side)
{
	FIX44::NewOrderSingle o(FIX::ClOrdID(std::to_string(n)), FIX::Side(side), FIX::TransactTime(),
				FIX::OrdType(FIX::OrdType_LIMIT));
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

template <class F> bool wait_until(F done, int seconds = 30)
{
	for (int i = 0; i < seconds * 100 && !done(); i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	return done();
}

bool exists(const std::string &name)
{
	return access((dir + "/" + name).c_str(), F_OK) == 0;
}

void on_term(int) { stop_requested = true; }

int run_initiator(FIX::SessionSettings &set, char **steps, int nsteps)
{
	Endpoint app(false);
	FIX::FileStoreFactory store(set);
	FIX::FileLogFactory log(set);
	FIX::SocketInitiator initiator(app, store, set, log);
	FIX::SessionID id("FIX.4.4", "INIT", "ACPT");
	initiator.start();
	int next_order = 1;
	for (int k = 0; k < nsteps; k++) {
		std::string step = steps[k], arg;
		size_t colon = step.find(':');
		if (colon != std::string::npos) {
			arg = step.substr(colon + 1);
			step = step.substr(0, colon);
		}
		bool ok = true;
		if (step == "logon") {
			ok = wait_until([] { return up.load(); });
		} else if (step == "send" || step == "send-bad") {
			int n = step == "send" ? std::atoi(arg.c_str()) : 1;
			for (int i = 0; i < n; i++) {
				FIX44::NewOrderSingle o = order(next_order++, step == "send" ? FIX::Side_BUY : 'Z');
				FIX::Session::sendToTarget(o, id);
			}
		} else if (step == "cancel" || step == "replace") {
			int n = std::atoi(arg.c_str());
			std::string orig = std::to_string(n);
			if (step == "cancel") {
				FIX44::OrderCancelRequest c(FIX::OrigClOrdID(orig), FIX::ClOrdID("c" + orig),
							    FIX::Side(FIX::Side_BUY), FIX::TransactTime());
				c.set(FIX::Symbol("NOKIA.HE"));
				c.set(FIX::OrderQty(10));
				FIX::Session::sendToTarget(c, id);
			} else {
				FIX44::OrderCancelReplaceRequest r(FIX::OrigClOrdID(orig), FIX::ClOrdID("r" + orig),
								   FIX::Side(FIX::Side_BUY), FIX::TransactTime(),
								   FIX::OrdType(FIX::OrdType_LIMIT));
				r.set(FIX::Symbol("NOKIA.HE"));
				r.set(FIX::OrderQty(20));
				r.set(FIX::Price(10000));
				FIX::Session::sendToTarget(r, id);
			}
		} else if (step == "wait-reports") {
			int n = std::atoi(arg.c_str());
			ok = wait_until([&] { return reports.load() >= n; });
		} else if (step == "first-order") {
			next_order = std::atoi(arg.c_str());
		} else if (step == "wait-down") {
			ok = wait_until([] { return !up.load(); });
		} else if (step == "wait-file") {
			ok = wait_until([&] { return exists(arg); }, 60);
		} else if (step == "touch") {
			std::ofstream(dir + "/" + arg) << "\n";
		} else if (step == "sleep") {
			std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(arg.c_str())));
		} else if (step == "logout") {
			int before = logged_out.load();
			FIX::Session *s = FIX::Session::lookupSession(id);
			if (s)
				s->logout();
			ok = wait_until([&] { return logged_out.load() > before; });
		} else {
			std::fprintf(stderr, "qf-session: unknown step '%s'\n", steps[k]);
			initiator.stop(true);
			return 2;
		}
		if (!ok) {
			std::fprintf(stderr, "qf-session: step '%s' timed out\n", steps[k]);
			initiator.stop(true);
			return 1;
		}
	}
	initiator.stop();
	return 0;
}

int run_acceptor(FIX::SessionSettings &set)
{
	Endpoint app(true);
	FIX::FileStoreFactory store(set);
	FIX::FileLogFactory log(set);
	FIX::SocketAcceptor acceptor(app, store, set, log);
	std::signal(SIGTERM, on_term);
	acceptor.start();
	std::ofstream(dir + "/listening") << getpid() << "\n";
	while (!stop_requested && !(logged_on.load() > 0 && logged_out.load() >= logged_on.load()))
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	acceptor.stop();
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 5 || (std::string(argv[1]) != "acceptor" && std::string(argv[1]) != "initiator")) {
		std::fprintf(stderr, "usage: qf-session acceptor|initiator DIR PORT FIX44.xml [STEP...]\n");
		return 2;
	}
	bool acceptor = std::string(argv[1]) == "acceptor";
	dir = argv[2];
	try {
		std::istringstream text(settings(argv[3], argv[4], acceptor));
		FIX::SessionSettings set(text);
		return acceptor ? run_acceptor(set) : run_initiator(set, argv + 5, argc - 5);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "qf-session: %s\n", e.what());
		return 2;
	}
}
