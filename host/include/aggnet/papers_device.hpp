// papers_device.hpp: a device string opened as a PAPERS port, whatever the
// path to the hub:
//
//   ppdev:/dev/parportN?pe=K                the PC port's three registers (LptPort)
//   serial:/dev/ttyUSBn@BAUD[?pe=K]         the link (LinkPapersPort on a SerialPipe;
//                                           K defaults to 0)
//   sim:DIR/peK, sim:DIR/link?pe=K          the link to the virtual hub (LinkPapersPort
//                                           on a SocketPipe, SocketPipe::sim_link_config())
//
//   auto port = aggnet::open_papers_port("serial:/dev/ttyUSB1@3000000?pe=2");
//   aggnet::Papers p(*port);
//
// The returned port owns the transport, pipe and link client it uses.
#pragma once

#include <aggnet/link_client.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/transport.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace aggnet {

/// Throws DeviceSyntaxError for a malformed string, DeviceError (or
/// LinkError) when it does not open or the hub is not one we can use.
/// `timeout` bounds connecting to a virtual hub's socket; the greeting over
/// the link is bounded by the link's resends (LinkConfig).
std::unique_ptr<PapersPort> open_papers_port(const std::string& spec,
                                             std::chrono::nanoseconds timeout = Transport::kDefaultIo);

/// The register transport under a port from open_papers_port (ppdev:), or
/// nullptr for the link (sim:, serial:).
Transport* transport_of(PapersPort& port);

/// The link under a sim: or serial: device string, before any HELLO: the
/// byte pipe and a LinkClient on it, configured as open_papers_port()
/// configures them (SocketPipe::sim_link_config() on a socket, the serial
/// line's resend hint on a tty), and the PE the string names.  For a tool
/// that drives several PEs on one link (aggnet board-check).  Throws
/// DeviceSyntaxError / DeviceError as open_papers_port(), and DeviceError
/// for a ppdev: string (no link there).
struct LinkConnection {
    std::unique_ptr<link::LinkPipe> pipe;
    std::unique_ptr<link::LinkClient> client;
    unsigned pe = 0;
};
LinkConnection open_link(const std::string& spec, std::chrono::nanoseconds timeout = Transport::kDefaultIo);

class LinkPapersPort;
/// The link port under a port from open_papers_port (sim:, serial:), or
/// nullptr for ppdev:.
LinkPapersPort* link_of(PapersPort& port);

}  // namespace aggnet
