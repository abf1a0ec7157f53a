/* A program linked against HDF5 and matio, whose NEEDED entries name their
 * sonames for h5load.c (sonames.sh reads them; it is never run). */
#include <hdf5.h>
#include <matio.h>

int main(void)
{
    unsigned a, b, c;
    int x, y, z;
    Mat_GetLibraryVersion(&x, &y, &z);
    return H5get_libversion(&a, &b, &c) < 0 || x < 0;
}
