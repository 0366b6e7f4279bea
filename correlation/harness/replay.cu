// Replays a host-action trace written by `gpusim export` (docs/cli.md) with
// the CUDA runtime API: cudaMalloc + cudaMemset for every allocation,
// cudaMemcpy for host writes and reads, cudaLaunchKernel with the recorded
// packed parameters (device pointers substituted by this run's addresses),
// and at the end compares every allocation with gpusim's final bytes.
//
// This file holds no kernel. build_app.sh generates, per kernel source, an
// app that #includes the kernel's .cu, then this file, then a table of
// {PTX name, host function pointer} and calls replay_main(). Exit status 0
// when every read and every final buffer matched, 1 on a mismatch, 2 on an
// error.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// The launch-configuration calls nvcc's host stubs make around a launch
// (CUDA <= 12 stubs: push in the <<<>>> expansion, pop + cudaLaunchKernel in
// the stub). CUDA 13 stubs launch through __cudaGetKernel/__cudaLaunchKernel
// instead, which GPGPU-Sim 4.2 does not provide, so the replay never calls a
// stub: it makes the CUDA 12 sequence itself (GPGPU-Sim takes the grid, block
// and shared size of a cudaLaunchKernel from the pushed configuration).
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                size_t sharedMem,
                                                struct CUstream_st *stream);
extern "C" cudaError_t __cudaPopCallConfiguration(dim3 *gridDim,
                                                  dim3 *blockDim,
                                                  size_t *sharedMem,
                                                  void *stream);

struct ReplayKernel {
  const char *name;  // as the PTX spells the entry
  const void *fn;    // host stub
};

// Module-scope variables the trace may write
// (`write_symbol`): {name as the PTX spells it, host shadow address}.
struct ReplaySymbol {
  const char *name;
  const void *sym;
};

namespace replay {

static std::string dir_of(const std::string &path) {
  size_t s = path.find_last_of('/');
  return s == std::string::npos ? std::string(".") : path.substr(0, s);
}

[[noreturn]] static void fail(int line, const std::string &msg) {
  fprintf(stderr, "replay: trace line %d: %s\n", line, msg.c_str());
  exit(2);
}

static void check(cudaError_t e, int line, const char *what) {
  if (e != cudaSuccess) {
    fail(line, std::string(what) + " failed: " + cudaGetErrorString(e));
  }
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static std::vector<unsigned char> unhex(const std::string &h, int line) {
  if (h.size() % 2) fail(line, "odd number of hex digits");
  std::vector<unsigned char> out(h.size() / 2);
  for (size_t i = 0; i < out.size(); i++) {
    int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);
    if (a < 0 || b < 0) fail(line, "bad hex digit");
    out[i] = (unsigned char)(a * 16 + b);
  }
  return out;
}

// DATA is "=HEX" or "@FILE" (relative to the trace's directory).
static std::vector<unsigned char> load_data(const std::string &field,
                                            size_t len, const std::string &dir,
                                            int line) {
  std::vector<unsigned char> out;
  if (!field.empty() && field[0] == '=') {
    out = unhex(field.substr(1), line);
  } else if (!field.empty() && field[0] == '@') {
    std::string path = dir + "/" + field.substr(1);
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(line, "cannot read " + path);
    out.assign(std::istreambuf_iterator<char>(f),
               std::istreambuf_iterator<char>());
  } else {
    fail(line, "bad data field `" + field + "`");
  }
  if (out.size() != len) fail(line, "data length differs from LEN");
  return out;
}

// Number of differing bytes, and the first differing offset.
static size_t compare(const std::vector<unsigned char> &got,
                      const std::vector<unsigned char> &want, size_t *first) {
  size_t n = 0;
  *first = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); i++) {
    if (got[i] != want[i]) {
      if (n == 0) *first = i;
      n++;
    }
  }
  return n;
}

}  // namespace replay

static int replay_main(int argc, char **argv, const ReplayKernel *kernels,
                       const ReplaySymbol *symbols) {
  using namespace replay;
  if (argc != 2) {
    fprintf(stderr, "usage: %s TRACE_DIR/trace.txt\n", argv[0]);
    return 2;
  }
  std::string trace = argv[1];
  std::string dir = dir_of(trace);
  std::ifstream in(trace);
  if (!in) {
    fprintf(stderr, "replay: cannot read %s\n", trace.c_str());
    return 2;
  }
  std::vector<char *> bufs;
  std::vector<size_t> sizes;
  size_t launches = 0, read_mismatches = 0, final_mismatches = 0;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    line++;
    std::istringstream ls(text);
    std::string op;
    ls >> op;
    if (op.empty() || op == "gpusim-trace" || op == "ptx") continue;
    if (op == "end") break;
    if (op == "alloc") {
      size_t id, bytes;
      std::string addr, name;
      ls >> id >> bytes >> addr >> name;
      if (!ls || id != bufs.size()) fail(line, "bad alloc");
      char *p = nullptr;
      check(cudaMalloc((void **)&p, bytes ? bytes : 1), line, "cudaMalloc");
      check(cudaMemset(p, 0, bytes ? bytes : 1), line, "cudaMemset");
      bufs.push_back(p);
      sizes.push_back(bytes);
      printf("replay: alloc %zu %s %zu bytes at %p (gpusim %s)\n", id,
             name.c_str(), bytes, (void *)p, addr.c_str());
    } else if (op == "write" || op == "read") {
      size_t id, off, len;
      std::string data;
      ls >> id >> off >> len >> data;
      if (!ls || id >= bufs.size() || off + len > sizes[id])
        fail(line, "bad " + op);
      std::vector<unsigned char> want = load_data(data, len, dir, line);
      if (op == "write") {
        check(cudaMemcpy(bufs[id] + off, want.data(), len,
                         cudaMemcpyHostToDevice),
              line, "cudaMemcpy to device");
      } else {
        std::vector<unsigned char> got(len);
        check(cudaMemcpy(got.data(), bufs[id] + off, len,
                         cudaMemcpyDeviceToHost),
              line, "cudaMemcpy to host");
        size_t first;
        size_t n = compare(got, want, &first);
        if (n) {
          read_mismatches++;
          printf("replay: READ MISMATCH line %d: allocation %zu, %zu bytes "
                 "differ, first at byte %zu\n",
                 line, id, n, off + first);
        }
      }
    } else if (op == "launch") {
      std::string name, hex;
      unsigned g[3], b[3], shared;
      size_t nparams;
      ls >> name >> g[0] >> g[1] >> g[2] >> b[0] >> b[1] >> b[2] >> shared >>
          nparams >> hex;
      if (!ls) fail(line, "bad launch");
      const void *fn = nullptr;
      for (const ReplayKernel *k = kernels; k->name; k++) {
        if (name == k->name) fn = k->fn;
      }
      if (!fn) fail(line, "the app has no kernel `" + name + "`");
      std::vector<unsigned char> params;
      if (hex != "-") params = unhex(hex, line);
      std::vector<void *> args;
      for (size_t i = 0; i < nparams; i++) {
        std::string ptext;
        int pline = ++line;
        if (!std::getline(in, ptext)) fail(pline, "missing param line");
        std::istringstream ps(ptext);
        std::string kw, kind;
        size_t off, size;
        ps >> kw >> off >> size >> kind;
        if (!ps || kw != "param" || off + size > params.size())
          fail(pline, "bad param line");
        if (kind == "ptr") {
          size_t id;
          unsigned long long delta;
          ps >> id >> delta;
          if (!ps || id >= bufs.size() || size != 8) fail(pline, "bad ptr");
          unsigned long long addr =
              (unsigned long long)(uintptr_t)bufs[id] + delta;
          memcpy(params.data() + off, &addr, 8);
        } else if (kind != "value") {
          fail(pline, "bad param kind `" + kind + "`");
        }
        args.push_back(params.data() + off);
      }
      dim3 grid(g[0], g[1], g[2]), block(b[0], b[1], b[2]);
      if (__cudaPushCallConfiguration(grid, block, shared, 0) != 0)
        fail(line, "__cudaPushCallConfiguration failed");
      size_t popped_shared;
      cudaStream_t popped_stream;
      check(__cudaPopCallConfiguration(&grid, &block, &popped_shared,
                                       &popped_stream),
            line, "__cudaPopCallConfiguration");
      check(cudaLaunchKernel(fn, grid, block, args.data(), shared, 0), line,
            "cudaLaunchKernel");
      check(cudaDeviceSynchronize(), line, "cudaDeviceSynchronize");
      launches++;
    } else if (op == "final") {
      size_t id, len;
      std::string data;
      ls >> id >> len >> data;
      if (!ls || id >= bufs.size() || len != sizes[id]) fail(line, "bad final");
      std::vector<unsigned char> want = load_data(data, len, dir, line);
      std::vector<unsigned char> got(len);
      check(cudaMemcpy(got.data(), bufs[id], len, cudaMemcpyDeviceToHost),
            line, "cudaMemcpy to host");
      size_t first;
      size_t n = compare(got, want, &first);
      if (n) {
        final_mismatches++;
        printf("replay: FINAL MISMATCH allocation %zu: %zu of %zu bytes differ, "
               "first at byte %zu\n",
               id, n, len, first);
      }
    } else if (op == "write_symbol") {
      std::string name, data;
      size_t off, len;
      ls >> name >> off >> len >> data;
      if (!ls) fail(line, "bad write_symbol");
      const void *sym = nullptr;
      for (const ReplaySymbol *v = symbols; v->name; v++) {
        if (name == v->name) sym = v->sym;
      }
      if (!sym) fail(line, "the app has no module-scope variable `" + name + "`");
      std::vector<unsigned char> want = load_data(data, len, dir, line);
      check(cudaMemcpyToSymbol(sym, want.data(), len, off,
                               cudaMemcpyHostToDevice),
            line, "cudaMemcpyToSymbol");
      printf("replay: write_symbol %s %zu bytes at offset %zu\n", name.c_str(),
             len, off);
    } else if (op == "texture") {
      fail(line, "`" + op + "` is not supported by this replay");
    } else {
      fail(line, "unknown action `" + op + "`");
    }
  }
  for (char *p : bufs) cudaFree(p);
  printf("replay: %zu launches, %zu allocations, %zu read mismatches, %zu "
         "final mismatches: %s\n",
         launches, bufs.size(), read_mismatches, final_mismatches,
         read_mismatches + final_mismatches ? "MISMATCH" : "SAME RESULT");
  return read_mismatches + final_mismatches ? 1 : 0;
}
