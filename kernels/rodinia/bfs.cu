// bfs: Rodinia's breadth-first search (kernel.cu / kernel2.cu), written for
// gpusim after the public algorithm.
//
// The graph is an array of Node {starting, no_of_edges} into an edge list.
// One thread per node.  Host loop (Rodinia's bfs.cu):
//   do { stop = false; Kernel; Kernel2; copy stop back } while (stop)
// Kernel expands every node of the frontier (g_graph_mask) to its
// unvisited neighbours; Kernel2 moves the updated nodes into the next
// frontier, marks them visited and sets the `over` flag.

struct Node {
    int starting;
    int no_of_edges;
};

extern "C" __global__ void Kernel(const Node *g_graph_nodes, const int *g_graph_edges,
                                  bool *g_graph_mask, bool *g_updating_graph_mask,
                                  const bool *g_graph_visited, int *g_cost,
                                  int no_of_nodes)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && g_graph_mask[tid]) {
        g_graph_mask[tid] = false;
        for (int i = g_graph_nodes[tid].starting;
             i < (g_graph_nodes[tid].no_of_edges + g_graph_nodes[tid].starting); i++) {
            int id = g_graph_edges[i];
            if (!g_graph_visited[id]) {
                g_cost[id] = g_cost[tid] + 1;
                g_updating_graph_mask[id] = true;
            }
        }
    }
}

extern "C" __global__ void Kernel2(bool *g_graph_mask, bool *g_updating_graph_mask,
                                   bool *g_graph_visited, bool *g_over, int no_of_nodes)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && g_updating_graph_mask[tid]) {
        g_graph_mask[tid] = true;
        g_graph_visited[tid] = true;
        *g_over = true;
        g_updating_graph_mask[tid] = false;
    }
}
