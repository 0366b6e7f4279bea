// divergent_loop: per-lane data-dependent trip counts and divergent
// branches. Each thread counts the Collatz steps of its input value
// (v -> v / 2 when even, 3 v + 1 when odd, until 1, at most max_steps):
// lanes of a warp leave the loop at different iterations, and within an
// iteration odd lanes take one step while even lanes run an inner loop
// that halves until v is odd (a branch nvcc cannot turn into a select, so
// the warp splits on the parity of every lane's value).
// Written for gpusim's correlation set.

extern "C" __global__ void divergent_loop(int *steps, const unsigned *start, int max_steps,
                                          int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = start[i];
    int s = 0;
    while (v != 1u && s < max_steps) {
        if (v & 1u) {
            v = 3u * v + 1u;
            s++;
        } else {
            do {
                v >>= 1;
                s++;
            } while ((v & 1u) == 0u && s < max_steps);
        }
    }
    steps[i] = s;
}
