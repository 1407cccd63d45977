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
    reg_t in(Deadline d) override { return inner().in(d); }
    void mode(uint8_t control, Deadline d) override { inner().mode(control, d); }
    reg_t wait(reg_t watch, reg_t last, Deadline d) override { return inner().wait(watch, last, d); }
    void flush(Deadline d) override { inner().flush(d); }
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
    OwnedLink(std::unique_ptr<link::LinkPipe> pipe, const std::string& device, const link::LinkConfig& cfg,
              unsigned pe)
        : pipe_(std::move(pipe)),
          client_(std::make_unique<link::LinkClient>(*pipe_, device, cfg)),
          port_(std::make_unique<LinkPapersPort>(*client_, *pipe_, pe)) {}
    LinkPapersPort* link() override { return port_.get(); }

private:
    PapersPort& inner() const override { return *port_; }
    std::unique_ptr<link::LinkPipe> pipe_;
    std::unique_ptr<link::LinkClient> client_;
    std::unique_ptr<LinkPapersPort> port_;
};

std::unique_ptr<PapersPort> open_serial(const DeviceSpec& d) {
    auto pipe = std::make_unique<link::SerialPipe>(d.path, d.baud);
    link::LinkConfig c;
    c.resend_timeout = pipe->resend_timeout_hint();  // an FTDI latency timer stuck high delays replies
    const std::string device = pipe->device();
    return std::make_unique<OwnedLink>(std::move(pipe), device, c, d.pe);
}

std::unique_ptr<PapersPort> open_sim(const std::string& spec, const DeviceSpec& d, std::chrono::nanoseconds timeout) {
    // The device string as given names the socket in every message (it says
    // which PE, also for DIR/link?pe=K).
    const std::string device = spec;
    auto pipe = std::make_unique<link::SocketPipe>(d.path, device, timeout);
    return std::make_unique<OwnedLink>(std::move(pipe), device, link::SocketPipe::sim_link_config(), d.pe);
}

}  // namespace

std::unique_ptr<PapersPort> open_papers_port(const std::string& spec, std::chrono::nanoseconds timeout) {
    const DeviceSpec d = parse_device(spec);
    switch (d.kind) {
    case DeviceSpec::Serial: return open_serial(d);
    case DeviceSpec::Sim: return open_sim(spec, d, timeout);
    case DeviceSpec::Ppdev: break;
    }
    return std::make_unique<OwnedLpt>(open_device(spec, timeout));
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
