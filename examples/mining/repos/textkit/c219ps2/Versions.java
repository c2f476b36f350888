package org.example.textkit;

public final class Versions {

    public static boolean isNewer(String current, String candidate) {
        int a = Integer.parseInt(current.split("\\.")[0]);
        int b = Integer.parseInt(candidate.split("\\.")[0]);
        if (a == b) {
            return Integer.parseInt(candidate.split("\\.")[1]) > Integer.parseInt(current.split("\\.")[1]);
        }
        return b > a;
    }
}
