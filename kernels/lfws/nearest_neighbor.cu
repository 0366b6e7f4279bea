// nearest_neighbor: the distance kernel of Rodinia's nn (LFWS Table 2
// "NNEI"), written for gpusim after the published algorithm. Each thread
// takes one (lat, lng) record and writes its Euclidean distance to the
// target point; the host then selects the k nearest records. The grid is
// 1-D, or 2-D when it needs more than 65535 CTAs (the global id is
// blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x).
// Per thread: two global loads, one global store, a handful of ALU ops.

struct LatLong {
    float lat;
    float lng;
};

extern "C" __global__ void euclid(const LatLong *__restrict__ locations,
                                  float *__restrict__ distances,
                                  int numRecords, float lat, float lng)
{
    int id = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    if (id < numRecords) {
        LatLong r = locations[id];
        float dlat = lat - r.lat;
        float dlng = lng - r.lng;
        distances[id] = sqrtf(dlat * dlat + dlng * dlng);
    }
}
