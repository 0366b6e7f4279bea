// Neural-network digit recognition (ISPASS-2009 "NN", LFWS Table 2 "NN"),
// after Mike O'Neill's convolutional network for MNIST: the first two
// layers, the ones the LFWS paper measures (its other two kernels run
// one-thread CTAs and are left out there).
//
// executeFirstLayer: grid (6, images), block (13, 13): CTA (m, img) computes
// feature map m (13 x 13) of image img from its 29 x 29 input; thread
// (x, y) sums a bias and a 5 x 5 window at (2x, 2y) (stride 2) times map
// m's 25 weights, all from global memory, and applies the scaled tanh
// 1.7159 * tanh(2/3 * sum). executeSecondLayer: grid (50, images), block
// (5, 5): CTA (m, img) computes map m (5 x 5) of the second layer from all
// six 13 x 13 maps of the first, a 5 x 5 stride-2 window per map and 6 x 25
// weights interleaved per window position (weight of position i, map k at
// 1 + 6i + k of the map's 156).
//
// Written for gpusim after the algorithm; the window offsets are the
// original's __constant__ templates. Layouts as in the original: layer 1
// 29 x 29 per image, layer 2 6 x 13 x 13 per image, layer 3 50 x 5 x 5 per
// image; weights 6 x 26 and 50 x 156.
__constant__ int kernelTemplate[25] = {
    0,   1,   2,   3,   4,
    29,  30,  31,  32,  33,
    58,  59,  60,  61,  62,
    87,  88,  89,  90,  91,
    116, 117, 118, 119, 120};

__constant__ int kernelTemplate2[25] = {
    0,  1,  2,  3,  4,
    13, 14, 15, 16, 17,
    26, 27, 28, 29, 30,
    39, 40, 41, 42, 43,
    52, 53, 54, 55, 56};

extern "C" __global__ void executeFirstLayer(const float *Layer1_Neurons, const float *Layer1_Weights,
                                             float *Layer2_Neurons)
{
    const int map = blockIdx.x;
    const int x = threadIdx.x, y = threadIdx.y;
    const int w0 = map * 26;
    const float *image = Layer1_Neurons + 29 * 29 * blockIdx.y;
    const int window = (2 * y) * 29 + 2 * x;

    float sum = Layer1_Weights[w0]; // the bias
    for (int i = 0; i < 25; ++i)
        sum += image[window + kernelTemplate[i]] * Layer1_Weights[w0 + 1 + i];

    Layer2_Neurons[13 * 13 * 6 * blockIdx.y + 13 * 13 * map + y * 13 + x] =
        1.7159f * tanhf(0.66666667f * sum);
}

extern "C" __global__ void executeSecondLayer(const float *Layer2_Neurons, const float *Layer2_Weights,
                                              float *Layer3_Neurons)
{
    const int map = blockIdx.x;
    const int x = threadIdx.x, y = threadIdx.y;
    const int w0 = map * 26 * 6;
    const float *maps = Layer2_Neurons + 13 * 13 * 6 * blockIdx.y;
    const int window = (2 * y) * 13 + 2 * x;

    float sum = Layer2_Weights[w0]; // the bias
    for (int i = 0; i < 25; ++i) {
        const int at = window + kernelTemplate2[i];
        const int w = w0 + 1 + 6 * i;
        sum += maps[at] * Layer2_Weights[w];
        sum += maps[169 + at] * Layer2_Weights[w + 1];
        sum += maps[338 + at] * Layer2_Weights[w + 2];
        sum += maps[507 + at] * Layer2_Weights[w + 3];
        sum += maps[676 + at] * Layer2_Weights[w + 4];
        sum += maps[845 + at] * Layer2_Weights[w + 5];
    }

    Layer3_Neurons[1250 * blockIdx.y + 25 * map + y * 5 + x] = 1.7159f * tanhf(0.66666667f * sum);
}
