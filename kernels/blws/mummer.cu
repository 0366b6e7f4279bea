// MUMmerGPU (BLWS Table 3, ISPASS 2009 "MUM"; Schatz et al.'s MUMmerGPU):
// exact matching of many short query reads against one reference sequence.
// The host builds the suffix tree of the reference (terminated by a 0 byte)
// and stores it as two flat arrays of 16-byte records in global memory:
//     d_Nodes[v]    = { edge start, edge end (exclusive) in the reference,
//                       suffix link, first reference position below v }
//     d_Children[v] = { child for 'A', 'C', 'G', 'T' } (0: none; node 0 is
//                       the root, never a child)
// One thread aligns one query (0-terminated characters in d_Queries): for
// every start position i = 0 .. len - minMatchLen it finds the longest
// prefix of query[i..] that occurs in the reference by walking the tree from
// the locus of the previous position's match, reached through the suffix
// link of the last node passed and a skip/count descent (MUMmerGPU's
// "mustmatch"), then comparing characters along the edges. A match of at
// least minMatchLen characters is written as (first reference position
// where it occurs, length) to the query's MatchCoord slot i; shorter ones
// leave the slot as the host filled it. Every step is a dependent global
// load (child record, node record, reference and query characters) and the
// threads of a warp walk different paths: divergent pointer chasing.
//
// A CTA of 256 threads (8 warps), one query per thread, as in the ISPASS
// launch (196 CTAs for 50 000 queries). MUMmerGPU reads the tree and the
// reference through textures; here they are plain global loads.
//
// Written for gpusim after the published algorithm (none of MUMmerGPU's code).
typedef unsigned int uint;

struct MatchCoord {
    uint refPos; // first reference position of the match
    uint len;    // match length
};

__device__ __forceinline__ int baseIndex(unsigned char c)
{
    switch (c) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return -1;
    }
}

__device__ __forceinline__ uint childOf(const uint4 *children, uint v, unsigned char c)
{
    const int b = baseIndex(c);
    if (b < 0) return 0;
    const uint4 ch = children[v];
    return b == 0 ? ch.x : b == 1 ? ch.y : b == 2 ? ch.z : ch.w;
}

extern "C" __global__ void mummergpuKernel(MatchCoord *d_MatchCoords,
                                           const uint4 *d_Nodes,
                                           const uint4 *d_Children,
                                           const unsigned char *d_Ref,
                                           const unsigned char *d_Queries,
                                           const uint *d_QueryAddrs,
                                           const uint *d_QueryLengths,
                                           uint numQueries, uint minMatchLen)
{
    const uint qry = blockIdx.x * blockDim.x + threadIdx.x;
    if (qry >= numQueries) return;

    const uint addr = d_QueryAddrs[qry];
    const uint qlen = d_QueryLengths[qry];
    const unsigned char *q = d_Queries + addr;
    // Query k takes len_k + 1 bytes and has len_k - minMatchLen + 1 slots.
    MatchCoord *result = d_MatchCoords + (addr - qry * minMatchLen);
    if (qlen < minMatchLen) return;
    const uint last = qlen - minMatchLen;

    uint v = 0;      // deepest node on the match path: its label is q[i .. i+depth)
    uint depth = 0;  // string depth of v
    uint skip = 0;   // characters after v known to match (descend by counting)

    for (uint i = 0; i <= last; ++i) {
        uint w = 0;   // the child of v whose edge the match is on
        uint off = 0; // characters matched along that edge
        uint4 wn = make_uint4(0, 0, 0, 0);

        // Skip/count: whole edges while the known part covers them.
        while (skip > 0) {
            w = childOf(d_Children, v, q[i + depth]);
            wn = d_Nodes[w];
            const uint elen = wn.y - wn.x;
            if (skip >= elen) {
                v = w;
                depth += elen;
                skip -= elen;
                w = 0;
            } else {
                off = skip;
                skip = 0;
            }
        }

        // Compare: extend the match character by character.
        uint len = depth + off;
        for (;;) {
            if (off == 0) {
                const unsigned char c = q[i + len];
                if (c == 0) break;
                w = childOf(d_Children, v, c);
                if (w == 0) break;
                wn = d_Nodes[w];
                off = 1; // the first character of the edge is c
                ++len;
            }
            bool mismatch = false;
            while (wn.x + off < wn.y) {
                const unsigned char c = q[i + len];
                if (c == 0 || d_Ref[wn.x + off] != c) {
                    mismatch = true;
                    break;
                }
                ++off;
                ++len;
            }
            if (mismatch) break;
            v = w; // the whole edge matched
            depth = len;
            off = 0;
            w = 0;
        }

        if (len >= minMatchLen) {
            // The occurrences are the leaves below the match's locus: below w
            // when the match ends on w's edge, below v when it ends at v.
            const uint first = off > 0 ? wn.w : d_Nodes[v].w;
            MatchCoord m;
            m.refPos = first;
            m.len = len;
            result[i] = m;
        }

        // Next start position: drop the first character.
        if (len == 0) {
            v = 0;
            depth = 0;
            skip = 0;
        } else if (v == 0) {
            skip = len - 1; // the match is on a root edge: re-descend from the root
        } else {
            v = d_Nodes[v].z; // suffix link: the label without its first character
            depth -= 1;
            skip = off;
        }
    }
}
