// dp_axpby: double-precision y = a*x + b*y, then a short chain of fp64
// FMAs per element (t = t*c + x, four times), one element per thread;
// y is read and overwritten. On the GTX480 fp64 goes through the DP path
// (GPGPU-Sim: -ptx_opcode_latency_dp / -ptx_opcode_initiation_dp).
// Written as an unseen probe, then kept unchanged for gpusim's held-out
// correlation set.

extern "C" __global__ void dp_axpby(double *y, const double *x, double a, double b,
                                    double c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double xi = x[i];
    double t = a * xi + b * y[i];
    t = fma(t, c, xi);
    t = fma(t, c, 0.5 * xi);
    t = fma(t, c, -xi);
    t = fma(t, c, 0.25);
    y[i] = t;
}
