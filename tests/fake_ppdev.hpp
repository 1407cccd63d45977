// fake_ppdev.hpp: an IoctlLayer that plays a PC's parallel port wired to a
// 2-PE hub (the Verilated papers_hub), we being PE0 and the fake driving PE1
// (a scripted partner that runs p_wait() forever), with optional broken
// wires.  Shared by test_host_device (the exact bytes libaggnet writes) and
// test_board_check (the pin-by-pin check).
#pragma once

#include "papers_pins.hpp"
#include "pc_port.hpp"

#include <aggnet/device.hpp>
#include <catch2/catch.hpp>

#include <cerrno>
#include <linux/parport.h>
#include <linux/ppdev.h>
#include <memory>
#include <string>
#include <sys/ioctl.h>
#include <vector>

namespace aggnet::test {

/// The PC's port + a 2-PE hub; we are PE0, the fake drives PE1.
class FakePpdev final : public IoctlLayer {
public:
    struct Call {
        unsigned long req;
        int byte;  // -1: no argument
        bool operator==(const Call& o) const { return req == o.req && byte == o.byte; }
    };
    std::vector<Call> calls;
    int open_errno = 0, claim_errno = 0;
    bool opened = false, closed = false;
    bool partner_arrives = true;  // false: PE1 never raises S
    bool partner_d = true;
    uint64_t partner_mask = 0x3;
    /// Broken wires between the PC and the hub: pins whose bit is set in a
    /// *_stuck mask read the matching bit of *_level whatever drives them
    /// (pin levels, register layout: data pins as written, control pins
    /// after the PC's inversion, status pins before it).
    uint8_t data_stuck = 0, data_level = 0;
    uint8_t ctrl_stuck = 0, ctrl_level = 0;
    uint8_t stat_stuck = 0, stat_level = 0;

    FakePpdev() : hub_(sim::make_papers_rtl(2, "fake_ppdev")) {
        hub_->reset(3);
        hub_->set_ctrl(1, uint8_t(0x09 ^ papers_regs::CABLE_CONTROL_INVERT));  // PE1: CE | U0 at pin levels (CE low)
    }
    int open(const char* path, int) override {
        if (open_errno) return errno = open_errno, -1;
        path_ = path;
        opened = true;
        return 42;
    }
    int close(int fd) override {
        REQUIRE(fd == 42);
        closed = true;
        return 0;
    }
    int ioctl(int fd, unsigned long req, void* arg) override {
        REQUIRE(fd == 42);
        if (req == PPCLAIM || req == PPRELEASE) {
            calls.push_back({req, -1});
            if (req == PPCLAIM && claim_errno) return errno = claim_errno, -1;
            return 0;
        }
        auto* b = static_cast<uint8_t*>(arg);
        for (int i = 0; i < 4; ++i) hub_->tick();  // about 1 us of hub time per access
        partner();
        if (req == PPWDATA) hub_->set_data(0, stuck(*b, data_stuck, data_level));
        else if (req == PPWCONTROL) hub_->set_ctrl(0, stuck(sim::control_reg_to_pins(*b), ctrl_stuck, ctrl_level));
        else if (req == PPRSTATUS)
            *b = uint8_t(sim::status_pins_to_reg(stuck(uint8_t(hub_->stat(0)), stat_stuck, stat_level), 2));
        else FAIL("unexpected ioctl request " << req);
        calls.push_back({req, int(*b)});
        return 0;
    }
    std::vector<Call> writes() const {
        std::vector<Call> w;
        for (auto& c : calls)
            if (c.req == PPWDATA || c.req == PPWCONTROL) w.push_back(c);
        return w;
    }

private:
    static uint8_t stuck(uint8_t pins, uint8_t mask, uint8_t level) {
        return uint8_t((pins & ~mask) | (level & mask));
    }
    // PE1 runs p_wait() forever: raise S, wait for GO, drop S, wait for !GO.
    void partner() {
        const bool go = (sim::status_pins_to_reg(hub_->stat(1), 2) >> 7) & 1;
        const reg_t base = reg_t(partner_mask << 4) | (partner_d ? 1 : 0);
        if (!partner_arrives) return hub_->set_data(1, base);
        // (A PE whose mask nobody names reads GO = 1, so it shows its mask first.)
        if (state_ == 0) hub_->set_data(1, base), state_ = 1;
        else if (state_ == 1 && !go) hub_->set_data(1, base | 0x8), state_ = 2;
        else if (state_ == 2 && go) hub_->set_data(1, base), state_ = 1;
    }
    std::unique_ptr<sim::PapersPins> hub_;
    std::string path_;
    int state_ = 0;
};

}  // namespace aggnet::test
