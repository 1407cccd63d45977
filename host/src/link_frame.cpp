// link_frame.cpp: the link frame codec (docs/link.md).
#include <aggnet/link_frame.hpp>

#include <cstdio>

namespace aggnet::link {

namespace D = link_defs;

uint32_t crc32_step(uint32_t crc, uint8_t byte) {
    crc ^= uint32_t(byte) << 24;
    for (int i = 0; i < 8; ++i) crc = (crc & 0x80000000u) ? (crc << 1) ^ D::CRC_POLY : crc << 1;
    return crc;
}

uint32_t crc32(const uint8_t* data, size_t n, uint32_t crc) {
    for (size_t i = 0; i < n; ++i) crc = crc32_step(crc, data[i]);
    return crc;
}

uint32_t Frame::value(unsigned first, unsigned n) const {
    uint32_t v = 0;
    for (unsigned i = 0; i < n && first + i < payload.size(); ++i) v = (v << 8) | payload[first + i];
    return v;
}

void Frame::append(uint32_t v, unsigned n) {
    for (unsigned i = 0; i < n && len < payload.size(); ++i) payload[len++] = uint8_t(v >> (8 * (n - 1 - i)));
}

uint32_t Frame::crc() const {
    const uint8_t hdr[6] = {pe, op, seq, uint8_t(addr >> 8), uint8_t(addr), len};
    return crc32(payload.data(), len, crc32(hdr, sizeof hdr));
}

bool Frame::operator==(const Frame& o) const {
    if (pe != o.pe || op != o.op || seq != o.seq || addr != o.addr || len != o.len) return false;
    for (unsigned i = 0; i < len && i < payload.size(); ++i)
        if (payload[i] != o.payload[i]) return false;
    return true;
}

std::string Frame::describe() const {
    char buf[160];
    const char* name = D::op_name(op);
    char opbuf[16];
    if (!name) {
        std::snprintf(opbuf, sizeof opbuf, "op 0x%02x", op);
        name = opbuf;
    }
    int n = std::snprintf(buf, sizeof buf, "PE%u %s seq %u addr 0x%04x len %u [", pe, name, seq, addr, len);
    for (unsigned i = 0; i < len && i < payload.size() && n < int(sizeof buf) - 4; ++i)
        n += std::snprintf(buf + n, sizeof buf - n, i ? " %02x" : "%02x", payload[i]);
    std::snprintf(buf + n, sizeof buf - n, "]");
    return buf;
}

namespace {
void put(std::vector<uint8_t>& out, uint8_t b) {
    if (b == D::FLAG || b == D::ESC) {
        out.push_back(D::ESC);
        out.push_back(uint8_t(b ^ D::ESC_XOR));
    } else {
        out.push_back(b);
    }
}
}  // namespace

void encode(const Frame& f, std::vector<uint8_t>& out) {
    out.push_back(D::FLAG);
    const unsigned len = f.len > D::MAX_PAYLOAD ? D::MAX_PAYLOAD : f.len;
    const uint8_t hdr[6] = {f.pe, f.op, f.seq, uint8_t(f.addr >> 8), uint8_t(f.addr), uint8_t(len)};
    uint32_t crc = D::CRC_INIT;
    for (uint8_t b : hdr) {
        put(out, b);
        crc = crc32_step(crc, b);
    }
    for (unsigned i = 0; i < len; ++i) {
        put(out, f.payload[i]);
        crc = crc32_step(crc, f.payload[i]);
    }
    for (int k = D::CRC_BYTES - 1; k >= 0; --k) put(out, uint8_t(crc >> (8 * k)));
}

namespace {
/// One byte of CRC-16/CCITT-FALSE (poly 0x1021, MSB first, init 0xFFFF), the
/// CRC of link versions 1-3: only to recognise their frames (Decoder::legacy).
uint16_t crc16_step(uint16_t crc, uint8_t byte) {
    crc ^= uint16_t(byte) << 8;
    for (int i = 0; i < 8; ++i) crc = (crc & 0x8000) ? uint16_t((crc << 1) ^ 0x1021) : uint16_t(crc << 1);
    return crc;
}
}  // namespace

std::vector<uint8_t> encode(const Frame& f) {
    std::vector<uint8_t> out;
    encode(f, out);
    return out;
}

bool Decoder::push(uint8_t b) {
    if (b == D::FLAG) {
        if (in_frame_ && (idx_ != 0 || esc_)) {
            ++stats_.resync;
            drop_partial();
        }
        in_frame_ = true;
        esc_ = false;
        idx_ = 0;
        crc_ = D::CRC_INIT;
        crc16_ = 0xFFFF;
        cur_ = Frame{};
        return false;
    }
    if (!in_frame_) return false;
    if (b == D::ESC && !esc_) {
        esc_ = true;
        return false;
    }
    const uint8_t u = esc_ ? uint8_t(b ^ D::ESC_XOR) : b;
    esc_ = false;
    crc_ = crc32_step(crc_, u);
    crc16_ = crc16_step(crc16_, u);
    const unsigned pay_end = unsigned(D::HDR_BYTES) + cur_.len;
    switch (idx_) {
    case 0: cur_.pe = u; break;
    case 1: cur_.op = u; break;
    case 2: cur_.seq = u; break;
    case 3: cur_.addr = uint16_t((cur_.addr & 0x00ff) | (u << 8)); break;
    case 4: cur_.addr = uint16_t((cur_.addr & 0xff00) | u); break;
    case 5:
        if (u > D::MAX_PAYLOAD) {
            ++stats_.bad_len;
            in_frame_ = false;
            return false;
        }
        cur_.len = u;
        break;
    default:
        if (idx_ < pay_end) cur_.payload[idx_ - D::HDR_BYTES] = u;
        break;
    }
    ++idx_;
    if (idx_ == unsigned(D::HDR_BYTES) + cur_.len + unsigned(D::CRC_BYTES)) {
        in_frame_ = false;
        if (crc_ != D::CRC_RESIDUE) {
            ++stats_.crc_err;
            return false;
        }
        ++stats_.frames_ok;
        out_ = cur_;
        return true;
    }
    return false;
}

void Decoder::timeout() {
    if (in_frame_) {
        ++stats_.timeout;
        drop_partial();
        in_frame_ = false;
    }
}

void Decoder::drop_partial() {
    // a whole frame of versions 1-3: header, payload, 2 CRC bytes, CRC-16 residue 0
    if (!esc_ && idx_ == unsigned(D::HDR_BYTES) + cur_.len + 2 && crc16_ == 0) ++stats_.legacy;
}

}  // namespace aggnet::link
