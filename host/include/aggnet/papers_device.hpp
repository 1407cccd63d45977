// papers_device.hpp: a device string opened as a PAPERS port, whatever the
// path to the hub:
//
//   sim:DIR/peK, ppdev:/dev/parportN?pe=K   the PC port's three registers (LptPort)
//   serial:/dev/ttyUSBn@BAUD[?pe=K]         the link (LinkPapersPort on a SerialPipe;
//                                           K defaults to 0)
//
//   auto port = aggnet::open_papers_port("serial:/dev/ttyUSB1@3000000?pe=2");
//   aggnet::Papers p(*port);
//
// The returned port owns the transport, pipe and link client it uses.
#pragma once

#include <aggnet/papers.hpp>
#include <aggnet/transport.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace aggnet {

/// Throws DeviceSyntaxError for a malformed string, DeviceError (or
/// LinkError) when it does not open or the hub is not one we can use.
/// `timeout` bounds opening and the greeting.
std::unique_ptr<PapersPort> open_papers_port(const std::string& spec,
                                             std::chrono::nanoseconds timeout = Transport::kDefaultIo);

/// The register transport under a port from open_papers_port (for the
/// virtual hub's extras, such as its cycle counter), or nullptr for the link.
Transport* transport_of(PapersPort& port);

class LinkPapersPort;
/// The link port under a port from open_papers_port, or nullptr for sim:/ppdev:.
LinkPapersPort* link_of(PapersPort& port);

}  // namespace aggnet
