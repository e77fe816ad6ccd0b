/* ops/lapack.h: dense linear algebra for f32, f64, c64 and c128: solve, inv, det, slogdet, cholesky, qr, eigh,
 * eig, eigvals, svd, svd_full, svdvals, solve_triangular, cholesky_solve, lu_factor, lu_solve, lstsq, pinv, matrix_rank, matrix_norm,
 * cond, matrix_power, matrix_exp. Stamped per
 * dtype through tensor_generic.h; each function here is a thin front door to its one dtype-independent
 * definition in ops/lapack_erased.h (LAPACKE with TH_USE_LAPACK, else the built-in LU / Cholesky there). */
#if defined(TH_REAL_IS_F32) || defined(TH_REAL_IS_F64) || defined(TH_REAL_IS_C64) || defined(TH_REAL_IS_C128)

/* The real dtype of the same precision: slogdet's logabsdet. */
#if defined(TH_REAL_IS_C64)
#define TH__LA_PART th_f32_tensor
#define TH__LA_PART_DT TH_F32
#elif defined(TH_REAL_IS_C128)
#define TH__LA_PART th_f64_tensor
#define TH__LA_PART_DT TH_F64
#else
#define TH__LA_PART TH_NAME(tensor)
#define TH__LA_PART_DT TH_DT_ENUM
#endif
/* TH__WRONG_DTYPE for a parameter of the real dtype. */
#define TH__LA_WRONG_PART(t) th__dtype_mismatch(__func__, #t, TH__B(t), TH__LA_PART_DT)
/* The complex dtype of the same precision: eig's results. */
#if defined(TH_REAL_IS_F32)
#define TH__LA_CPLX th_c64_tensor
#define TH__LA_CPLX_DT TH_C64
#elif defined(TH_REAL_IS_F64)
#define TH__LA_CPLX th_c128_tensor
#define TH__LA_CPLX_DT TH_C128
#else
#define TH__LA_CPLX TH_NAME(tensor)
#define TH__LA_CPLX_DT TH_DT_ENUM
#endif
#define TH__LA_WRONG_CPLX(t) th__dtype_mismatch(__func__, #t, TH__B(t), TH__LA_CPLX_DT)

#ifndef TH__DEFINING

/* Every function here takes A as a square matrix (n x n) or a batch of them (*, n, n), of any strides
 * (a transposed contiguous input is already LAPACK's column-major and copies straight), and loops over the
 * batch. The new forms return a new contiguous tensor (NULL on error); the _out forms write into out, which must
 * have exactly the result's shape and dtype, may overlap the inputs, and return 0 or a negative status.
 * Errors: NULL (TH_ERR_INVALID), a tensor of another dtype (TH_ERR_DTYPE), device memory (TH_ERR_DEVICE), A not
 * square or shapes that do not fit (TH_ERR_SHAPE), an out that is read-only (TH_ERR_READ_ONLY) or has
 * overlapping elements (TH_ERR_INVALID), and TH_ERR_LINALG for a matrix the op cannot take: singular (solve,
 * inv), not positive-definite (cholesky), or inf / NaN reaching a pivot; its message names the function, the
 * batch index and the pivot ("th_f64_solve: A is singular at batch index 3: pivot 1 of its LU factorisation
 * (U[1, 1]) is 0"). No NaN passes for a result; after such an error out holds no result (its contents are
 * unspecified). */

/* X with A X = B. B is a batch of vectors (*, n) when it has one dim or its shape is A's without the last dim,
 * else a batch of matrices (*, n, k) (torch.linalg.solve's rule); the batch dims of A and B broadcast. The result
 * has B's form with the broadcast batch. LU with partial pivoting (LAPACK's getrf + getrs). */
TH_API TH_NAME(tensor) *TH_NAME(solve)(const TH_NAME(tensor) *A, const TH_NAME(tensor) *B);
TH_API int TH_NAME(solve_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A, const TH_NAME(tensor) *B);
/* A^-1, of A's shape (getrf + getri). */
TH_API TH_NAME(tensor) *TH_NAME(inv)(const TH_NAME(tensor) *A);
TH_API int TH_NAME(inv_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A);
/* det(A): a 0-d tensor for one matrix, a tensor of the batch's shape for a batch; 0 for a singular matrix (not an
 * error), 1 for 0 x 0. From the LU factors, as sign * exp(logabsdet) (NumPy's way). */
TH_API TH_NAME(tensor) *TH_NAME(det)(const TH_NAME(tensor) *A);
TH_API int TH_NAME(det_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A);
/* The sign (a unit number; 0 for a singular matrix) and log |det A| (-inf for a singular matrix), in the real
 * dtype of the same precision, both of the batch's shape: det = sign * exp(logabsdet) without overflow.
 * slogdet returns 0 or a negative status; *sign and *logabsdet (either may be NULL: not wanted) get new tensors,
 * or NULL on error. */
TH_API int TH_NAME(slogdet)(const TH_NAME(tensor) *A, TH_NAME(tensor) **sign, TH__LA_PART **logabsdet);
TH_API int TH_NAME(slogdet_out)(TH_NAME(tensor) *sign, TH__LA_PART *logabsdet, const TH_NAME(tensor) *A);
/* L, lower triangular with a positive real diagonal, with A = L L^H (L L^T for real dtypes), read from A's lower
 * triangle (the upper one is not read: A is taken as Hermitian). TH_ERR_LINALG when A is not positive-definite:
 * the message gives the order of the first leading minor that is not. LAPACK's potrf. */
TH_API TH_NAME(tensor) *TH_NAME(cholesky)(const TH_NAME(tensor) *A);
TH_API int TH_NAME(cholesky_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A);

/* Q R = A, reduced: A (*, m, n) gives Q (*, m, k) with orthonormal columns and R (*, k, n) upper triangular,
 * k = min(m, n) (LAPACK's geqrf, orgqr / ungqr). The signs are LAPACK's (R's diagonal may be negative). qr returns
 * 0 or a negative status; *Q and *R (either may be NULL: not wanted) get new tensors, or NULL on error. Needs
 * LAPACK: without it TH_ERR_UNSUPPORTED, naming the build option (as eigh, svd and svdvals). */
TH_API int TH_NAME(qr)(const TH_NAME(tensor) *A, TH_NAME(tensor) **Q, TH_NAME(tensor) **R);
TH_API int TH_NAME(qr_out)(TH_NAME(tensor) *Q, TH_NAME(tensor) *R, const TH_NAME(tensor) *A);
/* The eigenvalues (*, n), ascending, in the real dtype, and (when eigenvectors is not NULL) the orthonormal
 * eigenvectors as the columns of (*, n, n) of the Hermitian A, read from its lower triangle (LAPACK's syevd /
 * heevd). Each vector is determined up to a sign (a phase for complex dtypes). eigh_out's eigenvectors may be
 * NULL: the values alone. TH_ERR_LINALG when A holds NaN or LAPACK does not converge. */
TH_API int TH_NAME(eigh)(const TH_NAME(tensor) *A, TH__LA_PART **eigenvalues, TH_NAME(tensor) **eigenvectors);
TH_API int TH_NAME(eigh_out)(TH__LA_PART *eigenvalues, TH_NAME(tensor) *eigenvectors, const TH_NAME(tensor) *A);
/* The eigenvalues (*, n) and (when eigenvectors is not NULL) the right eigenvectors as the columns of (*, n, n)
 * of the general square A (torch.linalg.eig, numpy.linalg.eig), always complex: c64 for f32 and c64 inputs, c128
 * for f64 and c128. Each vector has unit 2-norm and its largest component real (LAPACK's geev, whose order the
 * values keep: not sorted); a real A's complex values come in conjugate pairs, the positive imaginary part first.
 * eigvals: the values alone. eig_out's eigenvectors may be NULL. TH_ERR_LINALG when A holds NaN or LAPACK does
 * not converge. */
TH_API int TH_NAME(eig)(const TH_NAME(tensor) *A, TH__LA_CPLX **eigenvalues, TH__LA_CPLX **eigenvectors);
TH_API int TH_NAME(eig_out)(TH__LA_CPLX *eigenvalues, TH__LA_CPLX *eigenvectors, const TH_NAME(tensor) *A);
TH_API TH__LA_CPLX *TH_NAME(eigvals)(const TH_NAME(tensor) *A);
TH_API int TH_NAME(eigvals_out)(TH__LA_CPLX *out, const TH_NAME(tensor) *A);
/* A = U diag(S) Vh, reduced: A (*, m, n) gives U (*, m, k), S (*, k) descending and non-negative in the real
 * dtype, Vh (*, k, n), k = min(m, n) (LAPACK's gesdd). The singular vectors are determined up to a sign (a phase)
 * per pair. svd's U and Vh may be NULL (not wanted; S is always computed with them then); svdvals gives S alone,
 * without computing vectors. */
TH_API int TH_NAME(svd)(const TH_NAME(tensor) *A, TH_NAME(tensor) **U, TH__LA_PART **S, TH_NAME(tensor) **Vh);
TH_API int TH_NAME(svd_out)(TH_NAME(tensor) *U, TH__LA_PART *S, TH_NAME(tensor) *Vh, const TH_NAME(tensor) *A);
/* The full SVD (torch.linalg.svd's and numpy.linalg.svd's default, full_matrices=True): U (*, m, m) and Vh (*, n, n)
 * unitary, the columns of U and rows of Vh past k an orthonormal completion (LAPACK's gesdd, job 'A'); S as svd's.
 * With k = 0 (an empty side), U and Vh are the identity. */
TH_API int TH_NAME(svd_full)(const TH_NAME(tensor) *A, TH_NAME(tensor) **U, TH__LA_PART **S, TH_NAME(tensor) **Vh);
TH_API int TH_NAME(svd_full_out)(TH_NAME(tensor) *U, TH__LA_PART *S, TH_NAME(tensor) *Vh, const TH_NAME(tensor) *A);
TH_API TH__LA_PART *TH_NAME(svdvals)(const TH_NAME(tensor) *A);
TH_API int TH_NAME(svdvals_out)(TH__LA_PART *out, const TH_NAME(tensor) *A);

/* X with op(A) X = B (left) or X op(A) = B (not left), A (*, n, n) triangular: its upper triangle is read when
 * upper, else its lower one (the other is not read); unitriangular: its diagonal is taken as 1 and not read. B is a
 * batch of matrices, (*, n, k) (left) or (*, k, n); the batch dims of A and B broadcast; the result has B's
 * matrix shape (torch.linalg.solve_triangular). A zero on the diagonal is TH_ERR_LINALG (A is singular) and inf or
 * NaN in the triangle read is refused, naming the batch index and the element. LAPACK's trtrs, else the built-in
 * substitution. */
TH_API TH_NAME(tensor) *TH_NAME(solve_triangular)(const TH_NAME(tensor) *A, const TH_NAME(tensor) *B, bool upper,
                                                  bool left, bool unitriangular);
TH_API int TH_NAME(solve_triangular_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A, const TH_NAME(tensor) *B,
                                         bool upper, bool left, bool unitriangular);
/* X with A X = B where A = L L^H is given by its Cholesky factor L (*, n, n) (upper: A = U^H U, U given), as
 * torch.cholesky_solve(B, L, upper); B (*, n, k), the batch dims broadcast. LAPACK's potrs. */
TH_API TH_NAME(tensor) *TH_NAME(cholesky_solve)(const TH_NAME(tensor) *B, const TH_NAME(tensor) *L, bool upper);
TH_API int TH_NAME(cholesky_solve_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *B, const TH_NAME(tensor) *L,
                                       bool upper);
/* P A = L U with partial pivoting of A (*, n, n), packed as torch.linalg.lu_factor: LU (*, n, n) holds U and L's
 * strictly lower part (L's diagonal is 1), pivots (*, n) int32, 1-based (row i was swapped with row pivots[i] - 1,
 * in order). A singular A is TH_ERR_LINALG, as for solve. lu_factor returns 0 or a negative status; *LU and
 * *pivots (either may be NULL: not wanted) get new tensors, or NULL on error. LAPACK's getrf. */
TH_API int TH_NAME(lu_factor)(const TH_NAME(tensor) *A, TH_NAME(tensor) **LU, th_i32_tensor **pivots);
TH_API int TH_NAME(lu_factor_out)(TH_NAME(tensor) *LU, th_i32_tensor *pivots, const TH_NAME(tensor) *A);
/* X with A X = B from lu_factor's LU and pivots (the batch of LU's), B (*, n, k); the batch dims of LU and B
 * broadcast. A pivot outside 1..n is TH_ERR_INVALID. LAPACK's getrs. */
TH_API TH_NAME(tensor) *TH_NAME(lu_solve)(const TH_NAME(tensor) *LU, const th_i32_tensor *pivots,
                                          const TH_NAME(tensor) *B);
TH_API int TH_NAME(lu_solve_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *LU, const th_i32_tensor *pivots,
                                 const TH_NAME(tensor) *B);

/* Least squares (LAPACK's gelsd, as torch.linalg.lstsq's default driver and NumPy's lstsq): X (*, n, k) minimising
 * |A X - B| column by column, the minimum-norm one when A (*, m, n) is rank-deficient; B (*, m, k), the batch dims
 * broadcast. Singular values at most rcond * the largest count as 0 (rcond < 0: eps of the dtype * max(m, n)).
 * residuals (*, k) in the real dtype: the squared norms of the columns of A X - B when m > n (for a rank-deficient
 * A too, where NumPy and torch give none), else (*, 0); rank (*) int64; S (*, min(m, n)) descending. lstsq returns
 * 0 or a negative status; each pointer given (NULL: not wanted) gets a new tensor, or NULL on error. lstsq_out's
 * residuals, rank and S may be NULL (not wanted), X may not. Needs LAPACK (as pinv and matrix_rank). */
TH_API int TH_NAME(lstsq)(const TH_NAME(tensor) *A, const TH_NAME(tensor) *B, double rcond, TH_NAME(tensor) **X,
                          TH__LA_PART **residuals, th_i64_tensor **rank, TH__LA_PART **S);
TH_API int TH_NAME(lstsq_out)(TH_NAME(tensor) *X, TH__LA_PART *residuals, th_i64_tensor *rank, TH__LA_PART *S,
                              const TH_NAME(tensor) *A, const TH_NAME(tensor) *B, double rcond);
/* The pseudo-inverse (*, n, m) of A (*, m, n): singular values at most rtol * the largest are dropped (rtol < 0:
 * eps of the dtype * max(m, n), torch.linalg.pinv's default). The minimum-norm least-squares solution of A X = I
 * (gelsd). */
TH_API TH_NAME(tensor) *TH_NAME(pinv)(const TH_NAME(tensor) *A, double rtol);
TH_API int TH_NAME(pinv_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A, double rtol);
/* The number of singular values of each matrix of A (*, m, n) above rtol * its largest (rtol < 0: eps of the dtype
 * * max(m, n), as torch.linalg.matrix_rank and NumPy), int64 of the batch's shape (0-d for one matrix). */
TH_API th_i64_tensor *TH_NAME(matrix_rank)(const TH_NAME(tensor) *A, double rtol);
TH_API int TH_NAME(matrix_rank_out)(th_i64_tensor *out, const TH_NAME(tensor) *A, double rtol);

/* The matrix norm `ord` of every matrix of A (*, m, n), in the real dtype of the batch's shape (0-d for one matrix)
 * (torch.linalg.matrix_norm, numpy.linalg.norm with a matrix ord). TH_NORM_FRO and the row / column sums (1, -1,
 * inf, -inf) work in both builds and let NaN through as NumPy does; nuc, 2 and -2 take the singular values (LAPACK
 * only; NaN refused as by svdvals). A norm over an empty set (the 1-norm of a matrix of no columns) is TH_ERR_SHAPE. */
TH_API TH__LA_PART *TH_NAME(matrix_norm)(const TH_NAME(tensor) *A, th_norm_ord ord);
TH_API int TH_NAME(matrix_norm_out)(TH__LA_PART *out, const TH_NAME(tensor) *A, th_norm_ord ord);
/* The condition number of every matrix of A in the norm `ord` (torch.linalg.cond, numpy.linalg.cond): for
 * TH_NORM_2 (their default) and TH_NORM_NEG_2 the ratio of A's extreme singular values (any m x n; LAPACK only),
 * else |A| |A^-1| of a square A (A^-1 through the LU factorisation, in both builds; nuc needs LAPACK). inf for a
 * singular matrix, as NumPy and torch; an empty matrix is TH_ERR_SHAPE. In the real dtype of the batch's shape. */
TH_API TH__LA_PART *TH_NAME(cond)(const TH_NAME(tensor) *A, th_norm_ord ord);
TH_API int TH_NAME(cond_out)(TH__LA_PART *out, const TH_NAME(tensor) *A, th_norm_ord ord);

/* A^n of every matrix of A (*, m, m) (torch.linalg.matrix_power, numpy.linalg.matrix_power): the identity for n = 0,
 * repeated squaring with matmul for n > 0, (A^-1)^|n| for n < 0 (a singular A is then TH_ERR_LINALG, as inv).
 * Works in both builds. */
TH_API TH_NAME(tensor) *TH_NAME(matrix_power)(const TH_NAME(tensor) *A, int64_t n);
TH_API int TH_NAME(matrix_power_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A, int64_t n);
/* exp(A) of every matrix of A (*, n, n) (torch.linalg.matrix_exp, scipy.linalg.expm): scaling and squaring with
 * a Pade approximant of degree 3, 5, 7, 9 or 13 (f64, c128) or 3, 5, 7 (f32, c64) chosen by the 1-norm (Higham
 * 2005), the Pade system solved as by solve, the products by matmul. The identity for a zero matrix, exp of the
 * entry for n = 1; a matrix holding inf or NaN gives NaN throughout (no error, as torch); a huge norm overflows to
 * inf. Works in both builds. */
TH_API TH_NAME(tensor) *TH_NAME(matrix_exp)(const TH_NAME(tensor) *A);
TH_API int TH_NAME(matrix_exp_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A);

#else /* definitions */

/* An erased op's result: handed on (new forms) or released (_out forms: out already holds it). */
static int TH_PRIVATE(la_done)(th_tensor *r)
{
    if (!r) return th_last_status();
    th_tensor_release(r);
    return TH_OK;
}

TH_API TH_NAME(tensor) *TH_NAME(solve)(const TH_NAME(tensor) *A, const TH_NAME(tensor) *B)
{
    if (TH__WRONG_DTYPE(A) || TH__WRONG_DTYPE(B)) return NULL;
    return TH__T(th__la_solve(TH__FN(solve), TH_DT_ENUM, NULL, TH__B(A), TH__B(B)));
}

TH_API int TH_NAME(solve_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A, const TH_NAME(tensor) *B)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(A) || TH__WRONG_DTYPE(B)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(solve_out), "NULL out");
    return TH_PRIVATE(la_done)(th__la_solve(TH__FN(solve_out), TH_DT_ENUM, TH__B(out), TH__B(A), TH__B(B)));
}

TH_API TH_NAME(tensor) *TH_NAME(inv)(const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    return TH__T(th__la_inv(TH__FN(inv), TH_DT_ENUM, NULL, TH__B(A)));
}

TH_API int TH_NAME(inv_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(inv_out), "NULL out");
    return TH_PRIVATE(la_done)(th__la_inv(TH__FN(inv_out), TH_DT_ENUM, TH__B(out), TH__B(A)));
}

TH_API TH_NAME(tensor) *TH_NAME(det)(const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    th_tensor *r = NULL;
    th__la_dets(TH__FN(det), TH_DT_ENUM, TH__B(A), NULL, NULL, NULL, true, &r, NULL, NULL);
    return TH__T(r);
}

TH_API int TH_NAME(det_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(det_out), "NULL out");
    return th__la_dets(TH__FN(det_out), TH_DT_ENUM, TH__B(A), TH__B(out), NULL, NULL, true, NULL, NULL, NULL);
}

TH_API int TH_NAME(slogdet)(const TH_NAME(tensor) *A, TH_NAME(tensor) **sign, TH__LA_PART **logabsdet)
{
    if (sign) *sign = NULL;
    if (logabsdet) *logabsdet = NULL;
    if (TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    return th__la_dets(TH__FN(slogdet), TH_DT_ENUM, TH__B(A), NULL, NULL, NULL, false, NULL, (th_tensor **)sign,
                       (th_tensor **)logabsdet);
}

TH_API int TH_NAME(slogdet_out)(TH_NAME(tensor) *sign, TH__LA_PART *logabsdet, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(sign) || TH__LA_WRONG_PART(logabsdet) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    const char *fn = TH__FN(slogdet_out);
    if (!sign || !logabsdet) return th__fail(TH_ERR_INVALID, fn, "NULL %s", sign ? "logabsdet" : "sign");
    return th__la_dets(fn, TH_DT_ENUM, TH__B(A), NULL, TH__B(sign), TH__B(logabsdet), false, NULL, NULL, NULL);
}

TH_API TH_NAME(tensor) *TH_NAME(cholesky)(const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    return TH__T(th__la_cholesky(TH__FN(cholesky), TH_DT_ENUM, NULL, TH__B(A)));
}

TH_API int TH_NAME(cholesky_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(cholesky_out), "NULL out");
    return TH_PRIVATE(la_done)(th__la_cholesky(TH__FN(cholesky_out), TH_DT_ENUM, TH__B(out), TH__B(A)));
}

TH_API int TH_NAME(qr)(const TH_NAME(tensor) *A, TH_NAME(tensor) **Q, TH_NAME(tensor) **R)
{
    if (Q) *Q = NULL;
    if (R) *R = NULL;
    if (TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    return th__la_qr(TH__FN(qr), TH_DT_ENUM, TH__B(A), NULL, NULL, (th_tensor **)Q, (th_tensor **)R);
}

TH_API int TH_NAME(qr_out)(TH_NAME(tensor) *Q, TH_NAME(tensor) *R, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(Q) || TH__WRONG_DTYPE(R) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!Q || !R) return th__fail(TH_ERR_INVALID, TH__FN(qr_out), "NULL %s", Q ? "R" : "Q");
    return th__la_qr(TH__FN(qr_out), TH_DT_ENUM, TH__B(A), TH__B(Q), TH__B(R), NULL, NULL);
}

TH_API int TH_NAME(eigh)(const TH_NAME(tensor) *A, TH__LA_PART **eigenvalues, TH_NAME(tensor) **eigenvectors)
{
    if (eigenvalues) *eigenvalues = NULL;
    if (eigenvectors) *eigenvectors = NULL;
    if (TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    return th__la_eigh(TH__FN(eigh), TH_DT_ENUM, TH__B(A), NULL, NULL, eigenvectors != NULL,
                       (th_tensor **)eigenvalues, (th_tensor **)eigenvectors);
}

TH_API int TH_NAME(eigh_out)(TH__LA_PART *eigenvalues, TH_NAME(tensor) *eigenvectors, const TH_NAME(tensor) *A)
{
    if (TH__LA_WRONG_PART(eigenvalues) || TH__WRONG_DTYPE(eigenvectors) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!eigenvalues) return th__fail(TH_ERR_INVALID, TH__FN(eigh_out), "NULL eigenvalues");
    return th__la_eigh(TH__FN(eigh_out), TH_DT_ENUM, TH__B(A), TH__B(eigenvalues), TH__B(eigenvectors),
                       eigenvectors != NULL, NULL, NULL);
}

TH_API int TH_NAME(eig)(const TH_NAME(tensor) *A, TH__LA_CPLX **eigenvalues, TH__LA_CPLX **eigenvectors)
{
    if (eigenvalues) *eigenvalues = NULL;
    if (eigenvectors) *eigenvectors = NULL;
    if (TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    return th__la_eig(TH__FN(eig), TH_DT_ENUM, TH__B(A), NULL, NULL, eigenvectors != NULL,
                      (th_tensor **)eigenvalues, (th_tensor **)eigenvectors);
}

TH_API int TH_NAME(eig_out)(TH__LA_CPLX *eigenvalues, TH__LA_CPLX *eigenvectors, const TH_NAME(tensor) *A)
{
    if (TH__LA_WRONG_CPLX(eigenvalues) || TH__LA_WRONG_CPLX(eigenvectors) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!eigenvalues) return th__fail(TH_ERR_INVALID, TH__FN(eig_out), "NULL eigenvalues");
    return th__la_eig(TH__FN(eig_out), TH_DT_ENUM, TH__B(A), TH__B(eigenvalues), TH__B(eigenvectors),
                      eigenvectors != NULL, NULL, NULL);
}

TH_API TH__LA_CPLX *TH_NAME(eigvals)(const TH_NAME(tensor) *A)
{
    th_tensor *values = NULL;
    if (TH__WRONG_DTYPE(A)) return NULL;
    th__la_eig(TH__FN(eigvals), TH_DT_ENUM, TH__B(A), NULL, NULL, false, &values, NULL);
    return (TH__LA_CPLX *)values;
}

TH_API int TH_NAME(eigvals_out)(TH__LA_CPLX *out, const TH_NAME(tensor) *A)
{
    if (TH__LA_WRONG_CPLX(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(eigvals_out), "NULL out");
    return th__la_eig(TH__FN(eigvals_out), TH_DT_ENUM, TH__B(A), TH__B(out), NULL, false, NULL, NULL);
}

TH_API int TH_NAME(svd)(const TH_NAME(tensor) *A, TH_NAME(tensor) **U, TH__LA_PART **S, TH_NAME(tensor) **Vh)
{
    if (U) *U = NULL;
    if (S) *S = NULL;
    if (Vh) *Vh = NULL;
    if (TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    return th__la_svd(TH__FN(svd), TH_DT_ENUM, TH__B(A), NULL, NULL, NULL, U || Vh, false, (th_tensor **)U,
                      (th_tensor **)S, (th_tensor **)Vh);
}

TH_API int TH_NAME(svd_out)(TH_NAME(tensor) *U, TH__LA_PART *S, TH_NAME(tensor) *Vh, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(U) || TH__LA_WRONG_PART(S) || TH__WRONG_DTYPE(Vh) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!U || !S || !Vh) return th__fail(TH_ERR_INVALID, TH__FN(svd_out), "NULL %s", !U ? "U" : !S ? "S" : "Vh");
    return th__la_svd(TH__FN(svd_out), TH_DT_ENUM, TH__B(A), TH__B(U), TH__B(S), TH__B(Vh), true, false, NULL, NULL,
                      NULL);
}

TH_API int TH_NAME(svd_full)(const TH_NAME(tensor) *A, TH_NAME(tensor) **U, TH__LA_PART **S, TH_NAME(tensor) **Vh)
{
    if (U) *U = NULL;
    if (S) *S = NULL;
    if (Vh) *Vh = NULL;
    if (TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    return th__la_svd(TH__FN(svd_full), TH_DT_ENUM, TH__B(A), NULL, NULL, NULL, U || Vh, true, (th_tensor **)U,
                      (th_tensor **)S, (th_tensor **)Vh);
}

TH_API int TH_NAME(svd_full_out)(TH_NAME(tensor) *U, TH__LA_PART *S, TH_NAME(tensor) *Vh, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(U) || TH__LA_WRONG_PART(S) || TH__WRONG_DTYPE(Vh) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!U || !S || !Vh) return th__fail(TH_ERR_INVALID, TH__FN(svd_full_out), "NULL %s", !U ? "U" : !S ? "S" : "Vh");
    return th__la_svd(TH__FN(svd_full_out), TH_DT_ENUM, TH__B(A), TH__B(U), TH__B(S), TH__B(Vh), true, true, NULL,
                      NULL, NULL);
}

TH_API TH__LA_PART *TH_NAME(svdvals)(const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    th_tensor *s = NULL;
    th__la_svd(TH__FN(svdvals), TH_DT_ENUM, TH__B(A), NULL, NULL, NULL, false, false, NULL, &s, NULL);
    return (TH__LA_PART *)s;
}

TH_API int TH_NAME(svdvals_out)(TH__LA_PART *out, const TH_NAME(tensor) *A)
{
    if (TH__LA_WRONG_PART(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(svdvals_out), "NULL out");
    return th__la_svd(TH__FN(svdvals_out), TH_DT_ENUM, TH__B(A), NULL, TH__B(out), NULL, false, false, NULL, NULL,
                      NULL);
}

TH_API TH_NAME(tensor) *TH_NAME(solve_triangular)(const TH_NAME(tensor) *A, const TH_NAME(tensor) *B, bool upper,
                                                  bool left, bool unitriangular)
{
    if (TH__WRONG_DTYPE(A) || TH__WRONG_DTYPE(B)) return NULL;
    return TH__T(th__la_solve_triangular(TH__FN(solve_triangular), TH_DT_ENUM, NULL, TH__B(A), TH__B(B), upper, left,
                                         unitriangular));
}

TH_API int TH_NAME(solve_triangular_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A, const TH_NAME(tensor) *B,
                                         bool upper, bool left, bool unitriangular)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(A) || TH__WRONG_DTYPE(B)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(solve_triangular_out), "NULL out");
    return TH_PRIVATE(la_done)(th__la_solve_triangular(TH__FN(solve_triangular_out), TH_DT_ENUM, TH__B(out), TH__B(A),
                                                       TH__B(B), upper, left, unitriangular));
}

TH_API TH_NAME(tensor) *TH_NAME(cholesky_solve)(const TH_NAME(tensor) *B, const TH_NAME(tensor) *L, bool upper)
{
    if (TH__WRONG_DTYPE(B) || TH__WRONG_DTYPE(L)) return NULL;
    return TH__T(th__la_cholesky_solve(TH__FN(cholesky_solve), TH_DT_ENUM, NULL, TH__B(B), TH__B(L), upper));
}

TH_API int TH_NAME(cholesky_solve_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *B, const TH_NAME(tensor) *L,
                                       bool upper)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(B) || TH__WRONG_DTYPE(L)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(cholesky_solve_out), "NULL out");
    return TH_PRIVATE(la_done)(
        th__la_cholesky_solve(TH__FN(cholesky_solve_out), TH_DT_ENUM, TH__B(out), TH__B(B), TH__B(L), upper));
}

TH_API int TH_NAME(lu_factor)(const TH_NAME(tensor) *A, TH_NAME(tensor) **LU, th_i32_tensor **pivots)
{
    if (LU) *LU = NULL;
    if (pivots) *pivots = NULL;
    if (TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    return th__la_lu_factor(TH__FN(lu_factor), TH_DT_ENUM, TH__B(A), NULL, NULL, (th_tensor **)LU,
                            (th_tensor **)pivots);
}

TH_API int TH_NAME(lu_factor_out)(TH_NAME(tensor) *LU, th_i32_tensor *pivots, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(LU) || th__dtype_mismatch(__func__, "pivots", TH__B(pivots), TH_I32) || TH__WRONG_DTYPE(A))
        return TH_ERR_DTYPE;
    if (!LU || !pivots) return th__fail(TH_ERR_INVALID, TH__FN(lu_factor_out), "NULL %s", LU ? "pivots" : "LU");
    return th__la_lu_factor(TH__FN(lu_factor_out), TH_DT_ENUM, TH__B(A), TH__B(LU), TH__B(pivots), NULL, NULL);
}

TH_API TH_NAME(tensor) *TH_NAME(lu_solve)(const TH_NAME(tensor) *LU, const th_i32_tensor *pivots,
                                          const TH_NAME(tensor) *B)
{
    if (TH__WRONG_DTYPE(LU) || th__dtype_mismatch(__func__, "pivots", TH__B(pivots), TH_I32) || TH__WRONG_DTYPE(B))
        return NULL;
    return TH__T(th__la_lu_solve(TH__FN(lu_solve), TH_DT_ENUM, NULL, TH__B(LU), TH__B(pivots), TH__B(B)));
}

TH_API int TH_NAME(lu_solve_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *LU, const th_i32_tensor *pivots,
                                 const TH_NAME(tensor) *B)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(LU) || th__dtype_mismatch(__func__, "pivots", TH__B(pivots), TH_I32) ||
        TH__WRONG_DTYPE(B))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(lu_solve_out), "NULL out");
    return TH_PRIVATE(la_done)(
        th__la_lu_solve(TH__FN(lu_solve_out), TH_DT_ENUM, TH__B(out), TH__B(LU), TH__B(pivots), TH__B(B)));
}

TH_API int TH_NAME(lstsq)(const TH_NAME(tensor) *A, const TH_NAME(tensor) *B, double rcond, TH_NAME(tensor) **X,
                          TH__LA_PART **residuals, th_i64_tensor **rank, TH__LA_PART **S)
{
    if (X) *X = NULL;
    if (residuals) *residuals = NULL;
    if (rank) *rank = NULL;
    if (S) *S = NULL;
    if (TH__WRONG_DTYPE(A) || TH__WRONG_DTYPE(B)) return TH_ERR_DTYPE;
    th_tensor *outs[4] = {NULL, NULL, NULL, NULL};
    th_tensor **to[4] = {(th_tensor **)X, (th_tensor **)residuals, (th_tensor **)rank, (th_tensor **)S};
    return th__la_lstsq(TH__FN(lstsq), TH_DT_ENUM, TH__B(A), TH__B(B), rcond, false, outs, to);
}

TH_API int TH_NAME(lstsq_out)(TH_NAME(tensor) *X, TH__LA_PART *residuals, th_i64_tensor *rank, TH__LA_PART *S,
                              const TH_NAME(tensor) *A, const TH_NAME(tensor) *B, double rcond)
{
    if (TH__WRONG_DTYPE(X) || TH__LA_WRONG_PART(residuals) || th__dtype_mismatch(__func__, "rank", TH__B(rank), TH_I64) ||
        TH__LA_WRONG_PART(S) || TH__WRONG_DTYPE(A) || TH__WRONG_DTYPE(B))
        return TH_ERR_DTYPE;
    if (!X) return th__fail(TH_ERR_INVALID, TH__FN(lstsq_out), "NULL X");
    th_tensor *outs[4] = {TH__B(X), TH__B(residuals), TH__B(rank), TH__B(S)};
    th_tensor **to[4] = {NULL, NULL, NULL, NULL};
    return th__la_lstsq(TH__FN(lstsq_out), TH_DT_ENUM, TH__B(A), TH__B(B), rcond, false, outs, to);
}

TH_API TH_NAME(tensor) *TH_NAME(pinv)(const TH_NAME(tensor) *A, double rtol)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    th_tensor *r = NULL, *outs[4] = {NULL, NULL, NULL, NULL};
    th_tensor **to[4] = {&r, NULL, NULL, NULL};
    th__la_lstsq(TH__FN(pinv), TH_DT_ENUM, TH__B(A), NULL, rtol, true, outs, to);
    return TH__T(r);
}

TH_API int TH_NAME(pinv_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A, double rtol)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(pinv_out), "NULL out");
    th_tensor *outs[4] = {TH__B(out), NULL, NULL, NULL};
    th_tensor **to[4] = {NULL, NULL, NULL, NULL};
    return th__la_lstsq(TH__FN(pinv_out), TH_DT_ENUM, TH__B(A), NULL, rtol, true, outs, to);
}

TH_API th_i64_tensor *TH_NAME(matrix_rank)(const TH_NAME(tensor) *A, double rtol)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    return (th_i64_tensor *)th__la_matrix_rank(TH__FN(matrix_rank), TH_DT_ENUM, NULL, TH__B(A), rtol);
}

TH_API int TH_NAME(matrix_rank_out)(th_i64_tensor *out, const TH_NAME(tensor) *A, double rtol)
{
    if (th__dtype_mismatch(__func__, "out", TH__B(out), TH_I64) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(matrix_rank_out), "NULL out");
    return TH_PRIVATE(la_done)(th__la_matrix_rank(TH__FN(matrix_rank_out), TH_DT_ENUM, TH__B(out), TH__B(A), rtol));
}

TH_API TH__LA_PART *TH_NAME(matrix_norm)(const TH_NAME(tensor) *A, th_norm_ord ord)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    return (TH__LA_PART *)th__la_matrix_norm(TH__FN(matrix_norm), TH_DT_ENUM, NULL, TH__B(A), ord);
}

TH_API int TH_NAME(matrix_norm_out)(TH__LA_PART *out, const TH_NAME(tensor) *A, th_norm_ord ord)
{
    if (TH__LA_WRONG_PART(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(matrix_norm_out), "NULL out");
    return TH_PRIVATE(la_done)(th__la_matrix_norm(TH__FN(matrix_norm_out), TH_DT_ENUM, TH__B(out), TH__B(A), ord));
}

TH_API TH__LA_PART *TH_NAME(cond)(const TH_NAME(tensor) *A, th_norm_ord ord)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    return (TH__LA_PART *)th__la_cond(TH__FN(cond), TH_DT_ENUM, NULL, TH__B(A), ord);
}

TH_API int TH_NAME(cond_out)(TH__LA_PART *out, const TH_NAME(tensor) *A, th_norm_ord ord)
{
    if (TH__LA_WRONG_PART(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(cond_out), "NULL out");
    return TH_PRIVATE(la_done)(th__la_cond(TH__FN(cond_out), TH_DT_ENUM, TH__B(out), TH__B(A), ord));
}

/* matrix_power's and matrix_exp's products: this dtype's matmul, in the erased signature. */
static int TH_PRIVATE(la_matmul)(th_tensor *out, const th_tensor *a, const th_tensor *b)
{
    return TH_NAME(matmul_out)(TH__T(out), (const TH_NAME(tensor) *)a, (const TH_NAME(tensor) *)b);
}

TH_API TH_NAME(tensor) *TH_NAME(matrix_power)(const TH_NAME(tensor) *A, int64_t n)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    return TH__T(th__la_matrix_power(TH__FN(matrix_power), TH_DT_ENUM, NULL, TH__B(A), n, TH_PRIVATE(la_matmul)));
}

TH_API int TH_NAME(matrix_power_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A, int64_t n)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(matrix_power_out), "NULL out");
    return TH_PRIVATE(la_done)(
        th__la_matrix_power(TH__FN(matrix_power_out), TH_DT_ENUM, TH__B(out), TH__B(A), n, TH_PRIVATE(la_matmul)));
}

TH_API TH_NAME(tensor) *TH_NAME(matrix_exp)(const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(A)) return NULL;
    return TH__T(th__la_matrix_exp(TH__FN(matrix_exp), TH_DT_ENUM, NULL, TH__B(A), TH_PRIVATE(la_matmul)));
}

TH_API int TH_NAME(matrix_exp_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *A)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(A)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(matrix_exp_out), "NULL out");
    return TH_PRIVATE(la_done)(
        th__la_matrix_exp(TH__FN(matrix_exp_out), TH_DT_ENUM, TH__B(out), TH__B(A), TH_PRIVATE(la_matmul)));
}

#endif /* definitions */

#undef TH__LA_PART
#undef TH__LA_PART_DT
#undef TH__LA_CPLX
#undef TH__LA_CPLX_DT
#undef TH__LA_WRONG_CPLX
#undef TH__LA_WRONG_PART
#endif /* f32, f64, c64, c128 */
