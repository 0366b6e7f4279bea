// B+tree (BAWS Table 2 "BT", from Rodinia b+tree): findK and findRangeK.
// One thread block per query walks the tree from the root to a leaf, one
// level per iteration; thread t looks at key slot t of the current node
// (keys[t] <= key < keys[t+1] picks child t), one thread writes the next
// node, and __syncthreads() twice per level keeps the block in step.
// Threads per block = the tree's order: 256 = 8 warps, the paper's warps
// per TB.
//
// Written for gpusim after Rodinia's kernels (same node layout and
// arguments, `long` node numbers as Rodinia has them). Node layout: the
// node's own number, ORDER + 1 child (or record) indices, ORDER + 1 keys,
// a leaf flag and the key count; unused key slots hold INT_MAX so that no
// two threads match.
#define ORDER 256

struct knode {
    int location;
    int indices[ORDER + 1];
    int keys[ORDER + 1];
    bool is_leaf;
    int num_keys;
};

struct record {
    int value;
};

extern "C" __global__ void findK(long height, const knode *knodesD, long knodes_elem,
                                 const record *recordsD, long *currKnodeD, long *offsetD,
                                 const int *keysD, record *ansD)
{
    int thid = threadIdx.x;
    int bid = blockIdx.x;

    for (int i = 0; i < height; i++) {
        const knode *cur = &knodesD[currKnodeD[bid]];
        if (cur->keys[thid] <= keysD[bid] && cur->keys[thid + 1] > keysD[bid]) {
            int child = knodesD[offsetD[bid]].indices[thid];
            if (child < knodes_elem) offsetD[bid] = child;
        }
        __syncthreads();
        if (thid == 0) currKnodeD[bid] = offsetD[bid];
        __syncthreads();
    }

    const knode *leaf = &knodesD[currKnodeD[bid]];
    if (leaf->keys[thid] == keysD[bid]) ansD[bid].value = recordsD[leaf->indices[thid]].value;
}

extern "C" __global__ void findRangeK(long height, const knode *knodesD, long knodes_elem,
                                      long *currKnodeD, long *offsetD, long *lastKnodeD,
                                      long *offset_2D, const int *startD, const int *endD,
                                      int *RecstartD, int *ReclenD)
{
    int thid = threadIdx.x;
    int bid = blockIdx.x;

    for (int i = 0; i < height; i++) {
        const knode *cur = &knodesD[currKnodeD[bid]];
        if (cur->keys[thid] <= startD[bid] && cur->keys[thid + 1] > startD[bid]) {
            int child = knodesD[offsetD[bid]].indices[thid];
            if (child < knodes_elem) offsetD[bid] = child;
        }
        const knode *last = &knodesD[lastKnodeD[bid]];
        if (last->keys[thid] <= endD[bid] && last->keys[thid + 1] > endD[bid]) {
            int child = knodesD[offset_2D[bid]].indices[thid];
            if (child < knodes_elem) offset_2D[bid] = child;
        }
        __syncthreads();
        if (thid == 0) {
            currKnodeD[bid] = offsetD[bid];
            lastKnodeD[bid] = offset_2D[bid];
        }
        __syncthreads();
    }

    const knode *first = &knodesD[currKnodeD[bid]];
    if (first->keys[thid] == startD[bid]) RecstartD[bid] = first->indices[thid];
    __syncthreads();
    const knode *end = &knodesD[lastKnodeD[bid]];
    if (end->keys[thid] == endD[bid]) ReclenD[bid] = end->indices[thid] - RecstartD[bid] + 1;
}
