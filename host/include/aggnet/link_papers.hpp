// link_papers.hpp: the PAPERS routines over the link, for a PC without a
// parallel port.  LinkPapersPort is a PapersPort on the PAPERS window of a
// hub (docs/papers_regmap.md, "The PAPERS window on the link"), reached with
// a LinkClient over any byte pipe (a serial line, the virtual hub's socket,
// a Verilated hub in a test):
//
//   aggnet::link::LinkClient client(pipe, "serial:/dev/ttyUSB1@3000000");
//   aggnet::LinkPapersPort port(client, pipe, 2);   // we are PE2
//   aggnet::Papers p(port);                          // the same API as on a PC port
//   p.enqueue(p.all_mask()); p.wait();
//
// P_OUT becomes writes of SIG and MASK (each only when it changed), P_IN a
// read of STAT and IVEC (the window's terms: no PC layout), P_MODE a write
// of CTRL, and a wait for GO one link WAIT on STAT: the hub answers when GO
// has the awaited level, so a waiting PE sends nothing but keep-alives.
// On attach the port checks the hub: the PAPERS engine is present and its
// register map hash (INFO window) is the one this library was built with.
#pragma once

#include <aggnet/link_client.hpp>
#include <aggnet/papers.hpp>

#include <string>

namespace aggnet {

class LinkPapersPort final : public PapersPort {
public:
    /// Says HELLO for `pe` and checks the hub (throws DeviceError naming the
    /// device when the PE is not served, PAPERS is absent, or its register
    /// map differs).  `pipe` is the client's, for its clock.
    LinkPapersPort(link::LinkClient& client, link::LinkPipe& pipe, unsigned pe);

    unsigned hub_pes() const override { return n_; }
    unsigned pe_index() const override { return pe_; }
    std::chrono::nanoseconds now() override { return pipe_.now(); }
    void out(reg_t data, Deadline d) override;
    PapersStatus in(Deadline d) override;  ///< STAT and IVEC0/1
    void mode(uint8_t control, Deadline d) override;
    PapersStatus wait_go(bool level, Deadline d) override;  ///< one link WAIT on STAT
    bool present(uint64_t& pes, Deadline d) override;  ///< PRESENT0/1
    bool can_sync() const override { return sync_; }
    /// Barriers as one SYNC CALL each (the default), or, off, pin by pin as
    /// through a PC's port: writes of SIG and WAITs on STAT (for a test that
    /// follows the PE's registers frame by frame).
    void use_sync(bool on) { sync_ = on; }
    uint64_t sync(bool d, Deadline dl) override;                  ///< one SYNC CALL
    unsigned sync_cancel(uint64_t& last, Deadline dl) override;   ///< CANCEL, then LAST0/1
    uint64_t accesses() const override { return accesses_; }
    std::string describe() const override;

    /// What the hub said on attach, and the client (for INFO reads).
    const link::HelloInfo& hello() const { return hello_; }
    link::LinkClient& client() { return c_; }

private:
    uint16_t addr(uint16_t reg) const;
    link::LinkClient& c_;
    link::LinkPipe& pipe_;
    unsigned pe_, n_ = 0;
    bool have_sig_ = false, have_mask_ = false, sync_ = true;
    uint8_t sig_ = 0;
    uint64_t mask_ = 0;
    uint64_t accesses_ = 0;
    uint64_t clk_hz_ = 0;
    link::HelloInfo hello_{};
};

}  // namespace aggnet
