// papers_device.cpp: device strings opened as PAPERS ports (aggnet/papers_device.hpp).
#include <aggnet/device.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/serial_pipe.hpp>
#include <aggnet/socket_pipe.hpp>

namespace aggnet {

namespace {

/// A PapersPort that owns what it runs on and forwards to `inner`.
class Owning : public PapersPort {
public:
    unsigned hub_pes() const override { return inner().hub_pes(); }
    unsigned pe_index() const override { return inner().pe_index(); }
    std::chrono::nanoseconds now() override { return inner().now(); }
    void out(reg_t data, Deadline d) override { inner().out(data, d); }
    PapersStatus in(Deadline d) override { return inner().in(d); }
    void mode(uint8_t control, Deadline d) override { inner().mode(control, d); }
    PapersStatus wait_go(bool level, Deadline d) override { return inner().wait_go(level, d); }
    void flush(Deadline d) override { inner().flush(d); }
    bool present(uint64_t& pes, Deadline d) override { return inner().present(pes, d); }
    bool can_sync() const override { return inner().can_sync(); }
    uint64_t sync(bool d, Deadline dl) override { return inner().sync(d, dl); }
    unsigned sync_cancel(uint64_t& last, Deadline dl) override { return inner().sync_cancel(last, dl); }
    uint64_t accesses() const override { return inner().accesses(); }
    std::string describe() const override { return inner().describe(); }
    virtual Transport* transport() { return nullptr; }
    virtual LinkPapersPort* link() { return nullptr; }

protected:
    virtual PapersPort& inner() const = 0;
};

class OwnedLpt final : public Owning {
public:
    explicit OwnedLpt(std::unique_ptr<Transport> t) : t_(std::move(t)), lpt_(std::make_unique<LptPort>(*t_)) {}
    Transport* transport() override { return t_.get(); }

private:
    PapersPort& inner() const override { return *lpt_; }
    std::unique_ptr<Transport> t_;
    std::unique_ptr<LptPort> lpt_;
};

/// The link over any byte pipe: a SerialPipe (serial:) or a SocketPipe (sim:).
class OwnedLink final : public Owning {
public:
    explicit OwnedLink(LinkConnection c)
        : c_(std::move(c)), port_(std::make_unique<LinkPapersPort>(*c_.client, *c_.pipe, c_.pe)) {}
    LinkPapersPort* link() override { return port_.get(); }

private:
    PapersPort& inner() const override { return *port_; }
    LinkConnection c_;
    std::unique_ptr<LinkPapersPort> port_;
};

}  // namespace

LinkConnection open_link(const std::string& spec, std::chrono::nanoseconds timeout) {
    const DeviceSpec d = parse_device(spec);
    LinkConnection c;
    c.pe = d.pe;
    if (d.kind == DeviceSpec::Serial) {
        auto pipe = std::make_unique<link::SerialPipe>(d.path, d.baud);
        link::LinkConfig cfg;
        cfg.resend_timeout = pipe->resend_timeout_hint();  // an FTDI latency timer stuck high delays replies
        c.client = std::make_unique<link::LinkClient>(*pipe, pipe->device(), cfg);
        c.pipe = std::move(pipe);
    } else if (d.kind == DeviceSpec::Sim) {
        // The device string as given names the socket in every message (it
        // says which PE, also for DIR/link?pe=K).
        auto pipe = std::make_unique<link::SocketPipe>(d.path, spec, timeout);
        c.client = std::make_unique<link::LinkClient>(*pipe, spec, link::SocketPipe::sim_link_config());
        c.pipe = std::move(pipe);
    } else {
        throw DeviceError(spec + ": a ppdev: device is a parallel port's pins, not the link");
    }
    return c;
}

std::unique_ptr<PapersPort> open_papers_port(const std::string& spec, std::chrono::nanoseconds timeout) {
    if (parse_device(spec).kind == DeviceSpec::Ppdev) return std::make_unique<OwnedLpt>(open_device(spec, timeout));
    return std::make_unique<OwnedLink>(open_link(spec, timeout));
}

Transport* transport_of(PapersPort& port) {
    if (auto* o = dynamic_cast<Owning*>(&port)) return o->transport();
    if (auto* l = dynamic_cast<LptPort*>(&port)) return &l->transport();
    return nullptr;
}

LinkPapersPort* link_of(PapersPort& port) {
    if (auto* o = dynamic_cast<Owning*>(&port)) return o->link();
    return dynamic_cast<LinkPapersPort*>(&port);
}

}  // namespace aggnet
