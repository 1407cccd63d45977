// papers_device.cpp: device strings opened as PAPERS ports (aggnet/papers_device.hpp).
#include <aggnet/device.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/serial_pipe.hpp>

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

class OwnedLink final : public Owning {
public:
    static link::LinkConfig config(link::SerialPipe& pipe) {
        link::LinkConfig c;
        c.resend_timeout = pipe.resend_timeout_hint();  // an FTDI latency timer stuck high delays replies
        return c;
    }
    const link::SerialPipe& pipe() const { return *pipe_; }
    OwnedLink(const DeviceSpec& d)
        : pipe_(std::make_unique<link::SerialPipe>(d.path, d.baud)),
          client_(std::make_unique<link::LinkClient>(*pipe_, pipe_->device(), config(*pipe_))),
          port_(std::make_unique<LinkPapersPort>(*client_, *pipe_, d.pe)) {}
    LinkPapersPort* link() override { return port_.get(); }

private:
    PapersPort& inner() const override { return *port_; }
    std::unique_ptr<link::SerialPipe> pipe_;
    std::unique_ptr<link::LinkClient> client_;
    std::unique_ptr<LinkPapersPort> port_;
};

}  // namespace

std::unique_ptr<PapersPort> open_papers_port(const std::string& spec, std::chrono::nanoseconds timeout) {
    const DeviceSpec d = parse_device(spec);
    if (d.kind == DeviceSpec::Serial) return std::make_unique<OwnedLink>(d);
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
