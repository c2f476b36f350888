package org.example.textkit;

public final class Reverse {

    public static String of(String s) {
        char[] chars = s.toCharArray();
        String reversed = "";
        for (int i = chars.length - 1; i >= 0; i--) {
            reversed += chars[i];
        }
        return reversed;
    }
}
